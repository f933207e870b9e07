dev_devstuff: test.nop
