good:
  test.succeed_without_changes
bad:
  test.fail_without_changes
all_one_fail:
  test.succeed_with_changes:
    - onfail_all:
      - test: good
      - test: bad
any_one_fail:
  test.succeed_with_changes:
    - onfail_any:
      - test: good
      - test: bad
onfail_one_ok:
  test.succeed_with_changes:
    - onfail:
      - test: good
      - test: bad
late_bad:
  test.fail_without_changes
req_any:
  test.nop:
    - require_any:
      - test: good
      - test: bad
req_any_allbad:
  test.nop:
    - require_any:
      - test: bad
      - test: late_bad
onch_any:
  test.nop:
    - onchanges_any:
      - test: good
      - test: chg
chg:
  test.succeed_with_changes:
    - order: 1
watch_any:
  test.nop:
    - watch_any:
      - test: good
      - test: chg
