shared_dev: test.nop
