shared_id:
  test.nop
only_a:
  test.nop
