unless_true:
  test.succeed_with_changes:
    - unless: "true"
unless_false:
  test.succeed_with_changes:
    - unless: "false"
unless_list:
  test.succeed_with_changes:
    - unless:
      - "true"
      - "false"
onlyif_true:
  test.succeed_with_changes:
    - onlyif: "true"
onlyif_false:
  test.succeed_with_changes:
    - onlyif: "false"
onlyif_list:
  test.succeed_with_changes:
    - onlyif:
      - "true"
      - "exit 3"
both:
  test.succeed_with_changes:
    - onlyif: "false"
    - unless: "false"
creates_yes:
  test.succeed_with_changes:
    - creates: /etc
creates_no:
  test.succeed_with_changes:
    - creates: /nonexistent-brine-path
creates_list:
  test.succeed_with_changes:
    - creates:
      - /etc
      - /nonexistent-brine-path
cwd_env:
  test.succeed_with_changes:
    - onlyif: 'test "$(pwd)" = /tmp && test "$FOO" = bar'
    - cwd: /tmp
    - env:
      - FOO: bar
check_ok:
  test.fail_without_changes:
    - check_cmd:
      - "true"
check_bad:
  test.succeed_with_changes:
    - check_cmd:
      - "true"
      - "false"
skipped_then_checked:
  test.succeed_with_changes:
    - unless: "true"
    - check_cmd:
      - "false"
watch_skipped:
  test.succeed_without_changes:
    - unless: "true"
    - watch:
      - test: unless_false
watch_ran:
  test.succeed_without_changes:
    - onlyif: "true"
    - watch:
      - test: unless_false
no_fun:
  test.nop:
    - onlyif:
      - cmd: "true"
