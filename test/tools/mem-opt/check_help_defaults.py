#!/usr/bin/env python3
"""Checks the defaults `mem-opt --help` states for pass options.

usage: check_help_defaults.py HELP.txt DUMP.txt PASS...

HELP.txt is `mem-opt --help`; DUMP.txt is `--dump-pass-pipeline` of a
pipeline of default-constructed passes, which prints every option's actual
value, e.g. `memory-schedule{algorithm=exact budget=0 ...}`. For every pass in
DUMP.txt, each option whose help says "default: X" (or "default X", or an
enum value marked "(default)") must have X as its dumped value. Each PASS
named on the command line must state a default for every option. Prints one
OK line, or the mismatches and exits with 1.
"""

import re
import sys


def parse_help(lines):
    """Returns {pass: {option: stated default or None}}."""
    passes, current, option = {}, None, None
    for line in lines:
        match = re.match(r"^      --([a-z0-9-]+)\s+-\s", line)
        if match:
            current = passes.setdefault(match.group(1), {})
            option = None
            continue
        match = re.match(r"^        --([a-z0-9-]+)(=<[^>]*>)?\s+- (.*)$", line)
        if match and current is not None:
            option = match.group(1)
            stated = re.findall(r"default:? ([^;,()\s]+)", match.group(3))
            current[option] = stated[-1].strip("`") if stated else None
            continue
        match = re.match(r"^    =([a-z0-9-]+)\s+-\s+(.*)$", line)
        if match and current is not None and option is not None:
            if "(default)" in match.group(2):
                current[option] = match.group(1)
            continue
        if not line.startswith(" " * 8) and not line.startswith("    ="):
            current, option = None, None
    return passes


def parse_dump(text):
    """Returns {pass: {option: value}} of the passes with options."""
    return {
        name: dict(re.findall(r"([a-z0-9-]+)=(\S*)", options))
        for name, options in re.findall(r"([a-z0-9-]+)\{([^}]*)\}", text)
    }


def same(stated, actual):
    try:
        return float(stated) == float(actual)
    except ValueError:
        return stated == actual


def main():
    help_passes = parse_help(open(sys.argv[1]).read().splitlines())
    dumped = parse_dump(open(sys.argv[2]).read())
    required = sys.argv[3:]
    errors, checked = [], 0
    for name in required:
        if name not in dumped:
            errors.append("%s: not in the dumped pipeline" % name)
    for name, values in sorted(dumped.items()):
        stated = help_passes.get(name)
        if stated is None:
            errors.append("%s: not in --help" % name)
            continue
        for option, actual in sorted(values.items()):
            default = stated.get(option)
            if default is None:
                if name in required:
                    errors.append("%s: --%s states no default" % (name, option))
                continue
            checked += 1
            if not same(default, actual):
                errors.append("%s: --%s says default %s, the pass has %s" %
                              (name, option, default, actual))
    if errors:
        print("\n".join("FAIL: " + e for e in errors))
        return 1
    print("OK: %d stated defaults match" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
