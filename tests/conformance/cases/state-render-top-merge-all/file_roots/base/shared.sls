base_shared: test.nop
