include: [.sib]
ainit: test.nop
