web_fail:
  test.fail_without_changes:
    - name: web
