{% set state = 'imagick' %}
{% include "php/installed.jinja" %}
