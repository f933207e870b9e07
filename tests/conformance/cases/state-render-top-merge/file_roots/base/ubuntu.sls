ubuntu_state: test.nop
