g2:
  test.nop
