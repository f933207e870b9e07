{% set state = 'geshi' %}
{% include "php/installed.jinja" %}
