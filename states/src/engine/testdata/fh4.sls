s0:
  test.nop:
    - require_any:
      - test: s2
    - failhard: True
s1:
  test.fail_without_changes:
    - onfail:
      - test: s3
s2:
  test.succeed_without_changes:
    - onchanges_in:
      - test: s0
    - onchanges:
      - test: s3
s3:
  test.fail_without_changes:
    - require_in:
      - test: s1
    - onchanges_in:
      - test: s1
    - failhard: True
