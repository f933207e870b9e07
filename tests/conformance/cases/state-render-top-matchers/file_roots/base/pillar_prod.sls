pillar_prod: test.nop
