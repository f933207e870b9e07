include:
  - tmpl
user1:
  test.succeed_without_changes:
    - mode: '0600'
    - use:
      - test: template
user2:
  test.nop:
    - use:
      - template
user_by_name:
  test.nop:
    - use:
      - test: template-name
user_sls:
  test.nop:
    - use:
      - sls: tmpl
user_missing:
  test.nop:
    - use:
      - test: no_such_state
giver:
  test.nop:
    - name: giver-name
    - color: blue
    - size: 3
    - use_in:
      - test: taker
      - test: taker2
taker:
  test.nop:
    - size: 5
taker2:
  test.nop
