nodegroup_hit: test.nop
