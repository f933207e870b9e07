changed:
  test.succeed_with_changes
quiet:
  test.succeed_without_changes
failed_chg:
  test.fail_with_changes
on_changed:
  test.succeed_with_changes:
    - onchanges:
      - test: changed
on_quiet:
  test.succeed_with_changes:
    - onchanges:
      - test: quiet
on_both:
  test.succeed_without_changes:
    - onchanges:
      - test: changed
      - test: quiet
on_failed:
  test.nop:
    - onchanges:
      - test: failed_chg
chained:
  test.nop:
    - onchanges:
      - test: on_quiet
onchanges_and_require:
  test.nop:
    - onchanges:
      - test: changed
    - require:
      - test: quiet
on_later:
  test.nop:
    - onchanges:
      - test: later
later:
  test.succeed_with_changes
