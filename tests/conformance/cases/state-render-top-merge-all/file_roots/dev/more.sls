dev_more: test.nop
