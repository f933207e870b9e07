from_excl:
  test.nop
excluded_id:
  test.nop
