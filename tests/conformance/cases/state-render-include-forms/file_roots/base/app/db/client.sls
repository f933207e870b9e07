db_client:
  test:
    - nop
