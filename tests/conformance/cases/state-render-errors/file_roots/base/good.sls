good_one:
  test.nop
