include:
  - .server
  - ..common
db_init:
  test.nop
