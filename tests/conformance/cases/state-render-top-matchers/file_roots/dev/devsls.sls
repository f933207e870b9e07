dev_sls: test.nop
