short:
  test:
ok:
  test.nop
