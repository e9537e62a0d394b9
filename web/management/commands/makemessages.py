"""Django's makemessages, also finding the rules' words: `msg("...")` and `nmsg("one", "many", n)`
(`rules.words`), which the rules use in place of gettext since they import no Django."""

from django.core.management.commands.makemessages import Command as MakeMessages


class Command(MakeMessages):
    xgettext_options = [*MakeMessages.xgettext_options, "--keyword=msg", "--keyword=nmsg:1,2"]
