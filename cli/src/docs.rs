//! A command's manual page and shell completions, made from the same
//! [`Command`] table it parses its command line with, so they cannot say
//! other than the binary does. Every binary prints them when asked
//! (`--man-page`, `--completion bash|zsh`: not in `--help`, for packaging);
//! `packaging/build` writes them into the packages.

use super::{Command, Opt};

/// roff's text: backslashes and leading dots escaped, dashes literal.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\e").replace('-', "\\-");
    match t.strip_prefix('.') {
        Some(rest) => format!("\\&.{rest}"),
        None => t,
    }
}

/// The option's spellings for a manual page (`\-c \fIDIR\fR, \-\-config\-dir=\fIDIR\fR`).
fn spelled(o: &Opt) -> String {
    let mut names = Vec::new();
    if let Some(s) = o.short {
        names.push(match o.value {
            Some(v) => format!("\\fB\\-{s}\\fR \\fI{v}\\fR"),
            None => format!("\\fB\\-{s}\\fR"),
        });
    }
    let long = roff(o.long);
    names.push(match o.value {
        Some(v) => format!("\\fB\\-\\-{long}\\fR=\\fI{v}\\fR"),
        None => format!("\\fB\\-\\-{long}\\fR"),
    });
    names.join(", ")
}

impl Command {
    /// The manual page (section 1), in roff.
    pub fn man_page(&self) -> String {
        let name = roff(self.name);
        let mut out = format!(
            ".TH {} 1 \"\" \"brine {}\" \"brine manual\"\n.SH NAME\n{name} \\- {}\n\
             .SH SYNOPSIS\n\\fB{name}\\fR {}\n.SH DESCRIPTION\n{}\n.SH OPTIONS\n",
            self.name.to_uppercase(),
            env!("CARGO_PKG_VERSION"),
            roff(self.about),
            roff(self.usage),
            roff(self.about),
        );
        for o in &self.options {
            out.push_str(&format!(".TP\n{}\n{}\n", spelled(o), roff(o.help)));
        }
        out.push_str(
            ".TP\n\\fB\\-\\-version\\fR\nshow the program's version and exit\n\
             .TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow this help message and exit\n\
             .SH FILES\n.TP\n/etc/brine/\nthe configuration folder (\\fB\\-c\\fR), read as \
             Salt reads /etc/salt/\n.SH SEE ALSO\nbrine(1), brine\\-master(1), \
             brine\\-minion(1), brine\\-call(1), brine\\-key(1), brine\\-run(1), \
             brine\\-api(1)\n",
        );
        out
    }

    /// Completions for `shell` (`bash`, `zsh`); `None` for another.
    pub fn completion(&self, shell: &str) -> Option<String> {
        match shell {
            "bash" => Some(self.bash()),
            "zsh" => Some(self.zsh()),
            _ => None,
        }
    }

    fn bash(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        let mut valued: Vec<String> = Vec::new();
        for o in &self.options {
            words.push(format!("--{}", o.long));
            if let Some(s) = o.short {
                words.push(format!("-{s}"));
            }
            if o.value.is_some() {
                valued.push(format!("--{}", o.long));
                if let Some(s) = o.short {
                    valued.push(format!("-{s}"));
                }
            }
        }
        words.extend(["--version".into(), "--help".into(), "-h".into()]);
        let func = format!("_{}", self.name.replace('-', "_"));
        format!(
            "# bash completion for {name} (made from its option table)\n\
             {func}() {{\n\
             \x20   local cur prev\n\
             \x20   cur=\"${{COMP_WORDS[COMP_CWORD]}}\"\n\
             \x20   prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
             \x20   case \"$prev\" in\n\
             \x20       {valued})\n\
             \x20           COMPREPLY=($(compgen -f -- \"$cur\"))\n\
             \x20           return ;;\n\
             \x20   esac\n\
             \x20   if [[ \"$cur\" == -* ]]; then\n\
             \x20       COMPREPLY=($(compgen -W \"{words}\" -- \"$cur\"))\n\
             \x20   fi\n\
             }}\n\
             complete -F {func} {name}\n",
            name = self.name,
            valued = if valued.is_empty() {
                "--config-dir".to_string()
            } else {
                valued.join("|")
            },
            words = words.join(" "),
        )
    }

    fn zsh(&self) -> String {
        // zsh's _arguments spec: quotes and brackets in help text escaped.
        let esc = |t: &str| {
            t.replace('\'', "'\\''")
                .replace('[', "\\[")
                .replace(']', "\\]")
                .replace(':', "\\:")
        };
        let mut specs = Vec::new();
        for o in &self.options {
            let value = o
                .value
                .map(|v| format!(":{}:_files", v.to_lowercase()))
                .unwrap_or_default();
            let help = esc(o.help);
            match o.short {
                Some(s) => specs.push(format!(
                    "'(-{s} --{l})'{{-{s},--{l}{eq}}}'[{help}]{value}'",
                    l = o.long,
                    eq = if o.value.is_some() { "=" } else { "" }
                )),
                None => specs.push(format!(
                    "'--{l}{eq}[{help}]{value}'",
                    l = o.long,
                    eq = if o.value.is_some() { "=" } else { "" }
                )),
            }
        }
        specs.push("'--version[show the version and exit]'".into());
        specs.push("'(-h --help)'{-h,--help}'[show the help and exit]'".into());
        specs.push("'*::argument:_files'".into());
        format!(
            "#compdef {name}\n# zsh completion for {name} (made from its option table)\n\
             _arguments -s \\\n  {}\n",
            specs.join(" \\\n  "),
            name = self.name
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::{Command, Opt};

    fn cmd() -> Command {
        Command {
            name: "brine-key",
            usage: "[options]",
            about: "Manage the master's minion keys.",
            options: vec![
                crate::CONFIG_DIR,
                Opt::flag("list-all", Some('L'), "list every key"),
                Opt::value("accept", Some('a'), "ID", "accept ID's key [glob]"),
            ],
        }
    }

    #[test]
    fn man_page_and_completions_name_every_option() {
        let c = cmd();
        let man = c.man_page();
        assert!(man.starts_with(".TH BRINE-KEY 1"), "{man}");
        for o in &c.options {
            assert!(
                man.contains(&format!("\\-\\-{}", o.long.replace('-', "\\-"))),
                "{}",
                o.long
            );
        }
        let bash = c.completion("bash").unwrap_or_default();
        assert!(bash.contains("complete -F _brine_key brine-key"));
        assert!(bash.contains("--list-all -L") && bash.contains("--accept -a"));
        assert!(bash.contains("--accept|-a"), "{bash}");
        let zsh = c.completion("zsh").unwrap_or_default();
        assert!(zsh.starts_with("#compdef brine-key"));
        assert!(
            zsh.contains(
                "'(-a --accept)'{-a,--accept=}'[accept ID'\\''s key \\[glob\\]]:id:_files'"
            ),
            "{zsh}"
        );
        assert!(c.completion("fish").is_none());
    }
}
