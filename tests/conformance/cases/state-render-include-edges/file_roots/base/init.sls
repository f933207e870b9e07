include: [.a]
init_s: test.nop
