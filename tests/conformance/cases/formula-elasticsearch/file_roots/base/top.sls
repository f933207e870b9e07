base:
  '*':
    - elasticsearch
