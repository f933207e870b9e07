good:
  test.succeed_without_changes
bad:
  test.fail_without_changes
bad2:
  test.fail_with_changes
all_one_fail:
  test.succeed_with_changes:
    - onfail_all:
      - test: good
      - test: bad
all_fail:
  test.succeed_with_changes:
    - onfail_all:
      - test: bad
      - test: bad2
onfail_two:
  test.succeed_with_changes:
    - onfail:
      - test: good
      - test: bad
onfail_good:
  test.succeed_with_changes:
    - onfail:
      - test: good
onfail_and_require:
  test.succeed_with_changes:
    - onfail:
      - test: bad
    - require:
      - test: good
handled:
  test.succeed_without_changes:
    - onfail:
      - test: bad2
    - onfail_stop: False
