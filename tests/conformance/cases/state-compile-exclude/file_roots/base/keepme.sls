keep_state:
  test.nop
kill_me:
  test.nop
