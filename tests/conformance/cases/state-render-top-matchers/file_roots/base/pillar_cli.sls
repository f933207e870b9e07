pillar_cli: test.nop
