chg:
  test.succeed_with_changes
nochg:
  test.succeed_without_changes
bad:
  test.fail_without_changes
badchg:
  test.fail_with_changes
req_chg:
  test.succeed_with_changes:
    - require:
      - test: chg
onch:
  test.succeed_with_changes:
    - onchanges:
      - test: chg
onch_no:
  test.succeed_with_changes:
    - onchanges:
      - test: nochg
onf:
  test.succeed_with_changes:
    - onfail:
      - test: bad
onf2:
  test.succeed_with_changes:
    - onfail:
      - test: badchg
w:
  test.succeed_without_changes:
    - watch:
      - test: chg
w2:
  test.succeed_with_changes:
    - watch:
      - test: chg
req_bad:
  test.nop:
    - require:
      - test: bad
req_badchg:
  test.nop:
    - require:
      - test: badchg
cfg:
  test.configurable_test_state:
    - changes: False
    - result: False
cfg2:
  test.configurable_test_state:
    - result: False
    - allow_test_mode_failure: True
cfg3:
  test.configurable_test_state:
    - warnings: hello
    - comment: yo
notif:
  test.show_notification:
    - text: hi there
