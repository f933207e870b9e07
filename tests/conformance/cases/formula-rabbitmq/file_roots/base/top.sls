base:
  '*':
    - rabbitmq
