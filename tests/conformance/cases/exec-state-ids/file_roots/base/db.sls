db_fail:
  test.fail_without_changes:
    - name: dbfail
db_ok:
  test.nop:
    - name: dbok
