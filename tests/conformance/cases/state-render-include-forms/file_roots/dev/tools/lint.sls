dev_lint:
  test.nop:
    - name: lint {{ saltenv }} {{ tpldir }}
