sibling_state:
  test.nop
