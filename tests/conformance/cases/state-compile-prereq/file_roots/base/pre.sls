service_down:
  test.succeed_with_changes:
    - name: stop-service
    - prereq:
      - test: config_file
      - test: by-name
config_file:
  test.succeed_with_changes:
    - comment: config
named_target:
  test.nop:
    - name: by-name
announce:
  test.nop:
    - prereq_in:
      - test: config_file
      - named_target
maybe:
  test.nop:
    - prereq:
      - test: nowhere
dict_form:
  test.nop:
    - prereq_in:
        test: named_target
