{% set state = 'zlib' %}
{% include "php/installed.jinja" %}
