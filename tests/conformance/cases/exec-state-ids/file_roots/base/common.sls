common_ok:
  test.succeed_without_changes:
    - name: common
