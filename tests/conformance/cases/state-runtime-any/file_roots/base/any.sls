good:
  test.succeed_without_changes
bad:
  test.fail_without_changes
chg:
  test.succeed_with_changes:
    - order: 1
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
req_any_mixed_kinds:
  test.nop:
    - require:
      - test: good
    - require_any:
      - test: bad
      - test: chg
onch_any:
  test.nop:
    - onchanges_any:
      - test: good
      - test: chg
onch_any_none:
  test.nop:
    - onchanges_any:
      - test: good
      - test: req_any
watch_any:
  test.nop:
    - watch_any:
      - test: good
      - test: chg
watch_any_quiet:
  test.nop:
    - watch_any:
      - test: good
      - test: req_any
onfail_any:
  test.succeed_with_changes:
    - onfail_any:
      - test: good
      - test: bad
onfail_any_allgood:
  test.succeed_with_changes:
    - onfail_any:
      - test: good
      - test: chg
