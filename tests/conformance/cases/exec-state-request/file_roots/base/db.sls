db_change:
  test.succeed_with_changes:
    - name: db
db_ok:
  test.nop:
    - name: dbok
