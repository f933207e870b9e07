//! Salt's `file` execution module: paths (exists, parts), contents (read,
//! write, append, search, replace, line, blockreplace), the file system
//! (touch, copy, move, remove, directories, links), metadata (stats,
//! hashes, modes, owners) and `find`.
//!
//! The file states already do most of this work: what both need lives in
//! `state::modules::file` (`fsutil`, `replace`, `difflib`) and is called
//! from here, so a state and its execution twin cannot drift apart.
//!
//! - [`io`]: contents and the file system (read ... makedirs).
//! - [`meta`]: stats, hashes, modes, owners, links, access.
//! - [`text`]: contains, search, replace, line, blockreplace.
//! - [`find`]: Salt's `find` (a subset of find(1)'s options).
//! - [`source`]: `source_list` and `get_source_sum`.

mod args;
mod find;
mod io;
mod meta;
mod source;
mod text;

use super::function::{sig, CallError, Ctx, Function, Return, Signature};
use super::params::Params;
use args::{path_arg, path_str};
use brine_compile::minion_data::Returned;
use brine_core::Value;
use brine_host::path;

/// The signature several functions here share (Salt's, recorded).
const COMMENT_SIG: Signature = sig!(path, regex, char = "#", backup = ".bak");

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "access",
        sig!(path, mode),
        "True when the minion may access PATH in MODE: f (exists), r, w or x.\n\n    brine-call file.access /etc/passwd r",
        |_, p| new(meta::access(p)),
    ),
    Function::acts(
        "append",
        sig!(path, *args, **kwargs),
        "Add each further argument as a line at the end of PATH (a newline is \
added first if the file lacks one). The file must exist.\n\n    brine-call file.append /etc/motd 'line one' 'line two'",
        |_, p| io::append(p).map(Return::from),
    ),
    Function::reads(
        "basename",
        sig!(path),
        "The last part of PATH (Python's os.path.basename).\n\n    brine-call file.basename /etc/ssh/sshd_config",
        |_, p| path_part(p, path::basename),
    ),
    Function::acts(
        "blockreplace",
        sig!(
            path,
            marker_start = "#-- start managed zone --",
            marker_end = "#-- end managed zone --",
            content = "",
            append_if_not_found = false,
            prepend_if_not_found = false,
            backup = ".bak",
            dry_run = false,
            show_changes = true,
            append_newline = false,
            insert_before_match = null,
            insert_after_match = null
        ),
        "Replace the text between MARKER_START and MARKER_END lines in PATH with \
CONTENT; append_if_not_found, prepend_if_not_found, insert_before_match or \
insert_after_match add the block when the markers are missing. Returns the \
diff (show_changes) or whether it changed; dry_run only looks.\n\n    \
brine-call file.blockreplace /etc/hosts '#-- start --' '#-- end --' content='10.0.0.1 db'",
        |_, p| text::blockreplace(p).map(Return::from),
    ),
    Function::reads(
        "check_hash",
        sig!(path, file_hash),
        "True when PATH's digest equals FILE_HASH (`type:value`, `type=value`, \
or a bare value whose length names the type).\n\n    brine-call file.check_hash /etc/motd sha256:e3b0c4...",
        |_, p| new(meta::check_hash(p)),
    ),
    Function::acts(
        "chgrp",
        sig!(path, group),
        "Set PATH's group to GROUP (a name or an id), keeping its owner. \
Returns None, or why it could not.\n\n    brine-call file.chgrp /srv/app www-data",
        |_, p| meta::chgrp(p).map(Return::from),
    ),
    Function::acts(
        "chown",
        sig!(path, user, group),
        "Set PATH's owner USER and group GROUP (names or ids). Returns None, \
or why it could not.\n\n    brine-call file.chown /srv/app www-data www-data",
        |_, p| meta::chown(p).map(Return::from),
    ),
    Function::acts(
        "comment",
        COMMENT_SIG,
        "Comment out the lines of PATH that REGEX matches (from their start) \
with CHAR ('#'); backup: the suffix of a copy ('.bak'), False for none. \
Returns the diff of those lines, or False when none matched.\n\n    brine-call file.comment /etc/fstab '^/dev/sdb1'",
        |_, p| text::comment_line(p, Some(true)).map(Return::from),
    ),
    Function::acts(
        "comment_line",
        sig!(path, regex, char = "#", cmnt = true, backup = ".bak"),
        "file.comment (cmnt=True) or file.uncomment (cmnt=False) in one \
function.\n\n    brine-call file.comment_line /etc/fstab '^/dev/sdb1' cmnt=False",
        |_, p| text::comment_line(p, None).map(Return::from),
    ),
    Function::reads(
        "contains",
        sig!(path, text),
        "True when PATH contains TEXT (surrounding blanks ignored).\n\n    brine-call file.contains /etc/hosts localhost",
        |_, p| new(text::contains(p)),
    ),
    Function::reads(
        "contains_glob",
        sig!(path, glob_expr),
        "True when PATH's contents match the shell pattern GLOB_EXPR as a \
whole (use *text* to find text anywhere).\n\n    brine-call file.contains_glob /etc/hosts '*localhost*'",
        |_, p| new(text::contains_glob(p)),
    ),
    Function::reads(
        "contains_regex",
        sig!(path, regex, lchar = ""),
        "True when a line of PATH matches the Python regular expression REGEX \
(lchar: characters stripped from each line's start first).\n\n    brine-call file.contains_regex /etc/hosts '^127\\.'",
        |_, p| new(text::contains_regex(p)),
    ),
    Function::acts(
        "copy",
        sig!(src, dst, recurse = false, remove_existing = false),
        "Copy SRC to DST, keeping SRC's owner and mode; a directory needs \
recurse=True (remove_existing=True replaces DST instead of merging).\n\n    brine-call file.copy /etc/hosts /tmp/hosts",
        |_, p| io::copy(p).map(Return::from),
    ),
    Function::reads(
        "directory_exists",
        sig!(path),
        "True when PATH (~ expanded) is a directory.\n\n    brine-call file.directory_exists /etc",
        |c, p| test_path(c, p, |m| m.is_dir()),
    ),
    Function::reads(
        "dirname",
        sig!(path),
        "PATH without its last part (Python's os.path.dirname).\n\n    brine-call file.dirname /etc/ssh/sshd_config",
        |_, p| path_part(p, path::dirname),
    ),
    Function::reads(
        "diskusage",
        sig!(path),
        "The size in bytes of the file PATH, or of the files under the \
directory PATH (hard links counted once).\n\n    brine-call file.diskusage /var/log",
        |_, p| new(meta::diskusage(p)),
    ),
    Function::reads(
        "file_exists",
        sig!(path),
        "True when PATH (~ expanded) is a regular file (or a link to one).\n\n    brine-call file.file_exists /etc/passwd",
        |c, p| test_path(c, p, |m| m.is_file()),
    ),
    Function::acts(
        "find",
        sig!(path, *args, **kwargs),
        "The paths under PATH matching find(1)-like options: name, iname, \
regex, iregex, type (f d l b c p s), maxdepth, mindepth, size ([+-]N[bkmgt]), \
mtime ([+-]N[smhdw]), print (path name type size mtime user group mode ...), \
delete.\n\n    brine-call file.find /var/log name='*.gz' mtime=+30d",
        |_, p| find::find(p).map(Return::from),
    ),
    Function::reads(
        "get_diff",
        sig!(
            file1,
            file2,
            saltenv = "base",
            show_filenames = true,
            show_changes = true,
            template = false,
            source_hash_file1 = null,
            source_hash_file2 = null
        ),
        "The unified diff of FILE1 and FILE2 (local paths or salt:// sources \
in saltenv), '' when they are the same; show_filenames names them in the \
header, show_changes=False or a binary file answer a note instead.\n\n    brine-call file.get_diff /etc/hosts salt://hosts",
        |c, p| new(text::get_diff(c, p)),
    ),
    Function::reads(
        "get_gid",
        sig!(path, follow_symlinks = true),
        "The id of the group owning PATH (follow_symlinks=False: the link itself).\n\n    brine-call file.get_gid /etc/passwd",
        |_, p| new(meta::stat_field(p, "gid")),
    ),
    Function::reads(
        "get_group",
        sig!(path, follow_symlinks = true),
        "The group owning PATH (follow_symlinks=False: the link itself).\n\n    brine-call file.get_group /etc/passwd",
        |_, p| new(meta::stat_field(p, "group")),
    ),
    Function::reads(
        "get_hash",
        sig!(path, form = "sha256", chunk_size = 65536),
        "The hex digest of PATH's contents (form: md5, sha1, sha224, sha256, \
sha384, sha512; sha256 by default).\n\n    brine-call file.get_hash /etc/passwd form=md5",
        |_, p| new(meta::get_hash(p)),
    ),
    Function::reads(
        "get_mode",
        sig!(path, follow_symlinks = true),
        "PATH's permission bits as a string such as '0644'.\n\n    brine-call file.get_mode /etc/passwd",
        |_, p| new(meta::stat_field(p, "mode")),
    ),
    Function::reads(
        "get_source_sum",
        sig!(
            file_name = "",
            source = "",
            source_hash = null,
            source_hash_name = null,
            saltenv = "base",
            verify_ssl = true,
            source_hash_sig = null,
            signed_by_any = null,
            signed_by_all = null,
            keyring = null,
            gnupghome = null
        ),
        "The hash of a file source as a dict of hash_type and hsum: from \
SOURCE_HASH (a hash, or a salt:// or local file of hashes), or from the \
source itself when it is local.\n\n    brine-call file.get_source_sum /etc/motd source=salt://motd source_hash=sha256=abc...",
        source::get_source_sum,
    ),
    Function::reads(
        "get_sum",
        sig!(path, form = "sha256"),
        "The hex digest of the file PATH (form as file.get_hash takes it), or \
'File not found'.\n\n    brine-call file.get_sum /etc/passwd sha1",
        |_, p| new(meta::get_sum(p)),
    ),
    Function::reads(
        "get_uid",
        sig!(path, follow_symlinks = true),
        "The id of the user owning PATH (follow_symlinks=False: the link itself).\n\n    brine-call file.get_uid /etc/passwd",
        |_, p| new(meta::stat_field(p, "uid")),
    ),
    Function::reads(
        "get_user",
        sig!(path, follow_symlinks = true),
        "The user owning PATH (follow_symlinks=False: the link itself).\n\n    brine-call file.get_user /etc/passwd",
        |_, p| new(meta::stat_field(p, "user")),
    ),
    Function::reads(
        "gid_to_group",
        sig!(gid),
        "The name of group GID (a name is looked up first); the id itself \
when it has no name, '' for an unknown name.\n\n    brine-call file.gid_to_group 0",
        |_, p| new(meta::gid_to_group(p)),
    ),
    Function::acts(
        "grep",
        sig!(path, pattern, *args),
        "Run grep(1) for PATTERN in PATH (a shell pattern; each further \
argument one grep option, after -- on the command line). Answers \
{pid, retcode, stdout, stderr}.\n\n    brine-call file.grep /etc/hosts localhost -- -n",
        io::grep,
    ),
    Function::reads(
        "group_to_gid",
        sig!(group),
        "The id of group GROUP (an id as it is); '' when there is no such group.\n\n    brine-call file.group_to_gid root",
        |_, p| new(meta::group_to_gid(p)),
    ),
    Function::reads(
        "is_blkdev",
        sig!(name),
        "True when NAME is a block device.\n\n    brine-call file.is_blkdev /dev/sda",
        |_, p| new(meta::is_kind(p, |t| {
            use std::os::unix::fs::FileTypeExt;
            t.is_block_device()
        })),
    ),
    Function::reads(
        "is_chrdev",
        sig!(name),
        "True when NAME is a character device.\n\n    brine-call file.is_chrdev /dev/null",
        |_, p| new(meta::is_kind(p, |t| {
            use std::os::unix::fs::FileTypeExt;
            t.is_char_device()
        })),
    ),
    Function::reads(
        "is_fifo",
        sig!(name),
        "True when NAME is a named pipe.\n\n    brine-call file.is_fifo /run/initctl",
        |_, p| new(meta::is_kind(p, |t| {
            use std::os::unix::fs::FileTypeExt;
            t.is_fifo()
        })),
    ),
    Function::reads(
        "is_hardlink",
        sig!(path),
        "True when PATH has more than one hard link.\n\n    brine-call file.is_hardlink /etc/passwd",
        |_, p| new(meta::is_hardlink(p)),
    ),
    Function::reads(
        "is_link",
        sig!(path),
        "True when PATH is a symbolic link.\n\n    brine-call file.is_link /usr/bin/python3",
        |_, p| new(meta::is_link(p)),
    ),
    Function::reads(
        "join",
        sig!(*args),
        "The arguments joined into one path (Python's os.path.join: an absolute \
part starts over).\n\n    brine-call file.join / usr local bin",
        join,
    ),
    Function::acts(
        "lchown",
        sig!(path, user, group),
        "Set the owner USER and group GROUP of PATH itself (a link is not \
followed).\n\n    brine-call file.lchown /srv/current www-data www-data",
        |_, p| meta::lchown(p).map(Return::from),
    ),
    Function::acts(
        "line",
        sig!(
            path,
            content = null,
            match = null,
            mode = null,
            location = null,
            before = null,
            after = null,
            show_changes = true,
            backup = false,
            quiet = false,
            indent = true
        ),
        "Edit one line of PATH. mode: ensure (present, placed by before/after), \
replace (the line matching MATCH), delete, insert (at location start/end or \
before/after a matching line). Returns the diff (show_changes) or whether \
it changed.\n\n    brine-call file.line /etc/fstab content='tmpfs /tmp tmpfs 0 0' mode=ensure after='^/dev/sda1'",
        |c, p| text::line(c, p).map(Return::from),
    ),
    Function::acts(
        "link",
        sig!(src, path),
        "Make PATH a hard link to the file SRC.\n\n    brine-call file.link /srv/a /srv/b",
        |_, p| meta::link(p).map(Return::from),
    ),
    Function::reads(
        "lstat",
        sig!(path),
        "Some of lstat(2)'s fields of PATH (st_atime, st_ctime, st_gid, st_mode, \
st_mtime, st_nlink, st_size, st_uid); {} when it cannot be read.\n\n    brine-call file.lstat /etc/passwd",
        |_, p| new(meta::lstat(p)),
    ),
    Function::acts(
        "makedirs",
        sig!(path, user = null, group = null, mode = null),
        "Create the missing parent directories of PATH (a directory path ends \
with /), each with USER, GROUP and MODE.\n\n    brine-call file.makedirs /srv/app/conf/",
        |_, p| io::makedirs(p).map(Return::from),
    ),
    Function::acts(
        "mkdir",
        sig!(dir_path, user = null, group = null, mode = null),
        "Create directory DIR_PATH and its missing parents with USER, GROUP \
and MODE. True.\n\n    brine-call file.mkdir /srv/app mode=750",
        |_, p| io::mkdir(p).map(Return::from),
    ),
    Function::acts(
        "move",
        sig!(src, dst, disallow_copy_and_unlink = false),
        "Move SRC to DST (into DST when it is a directory), across file \
systems too. Returns a result dict.\n\n    brine-call file.move /tmp/a /srv/a",
        |_, p| io::move_(p).map(Return::from),
    ),
    Function::reads(
        "normpath",
        sig!(path),
        "PATH with redundant separators and . and .. parts removed (Python's \
os.path.normpath).\n\n    brine-call file.normpath /etc/../usr//lib",
        |_, mut p| {
            let path = path_str("normpath", p.require("path")?)?;
            p.finish()?;
            Ok(Returned::New(Value::Str(
                brine_states::modules::file::fsutil::normpath(&path),
            )))
        },
    ),
    Function::reads(
        "pardir",
        sig!(),
        "The parent directory's name in paths: '..'.\n\n    brine-call file.pardir",
        |_, p| {
            p.finish()?;
            Ok(Returned::New(Value::Str("..".into())))
        },
    ),
    Function::reads(
        "path_exists_glob",
        sig!(path),
        "True when the shell pattern PATH (~ expanded) matches an existing path.\n\n    brine-call file.path_exists_glob '/etc/ssh/*.pub'",
        |_, p| new(io::path_exists_glob(p)),
    ),
    Function::acts(
        "prepend",
        sig!(path, *args, **kwargs),
        "Put each further argument as a line at the start of PATH (created if \
missing).\n\n    brine-call file.prepend /etc/motd 'Welcome'",
        |_, p| io::prepend(p).map(Return::from),
    ),
    Function::reads(
        "read",
        sig!(path, binary = false),
        "The contents of PATH (binary=True: Python's bytes).\n\n    brine-call file.read /etc/hostname",
        |_, p| new(io::read(p)),
    ),
    Function::reads(
        "readdir",
        sig!(path),
        "The entries of the directory PATH, '.' and '..' first.\n\n    brine-call file.readdir /etc/ssh",
        |_, p| new(io::readdir(p)),
    ),
    Function::reads(
        "readlink",
        sig!(path, canonicalize = false),
        "Where the symbolic link PATH points (canonicalize=True: the final \
path with every link resolved).\n\n    brine-call file.readlink /usr/bin/python3",
        |_, p| new(meta::readlink(p)),
    ),
    Function::acts(
        "remove",
        sig!(path, **kwargs),
        "Delete PATH: a file or link, or a directory with its contents. False \
when nothing was there.\n\n    brine-call file.remove /tmp/old",
        |_, p| io::remove(p).map(Return::from),
    ),
    Function::acts(
        "rename",
        sig!(src, dst),
        "Rename SRC to DST (same file system).\n\n    brine-call file.rename /tmp/a /tmp/b",
        |_, p| io::rename(p).map(Return::from),
    ),
    Function::acts(
        "replace",
        sig!(
            path,
            pattern,
            repl,
            count = 0,
            flags = 8,
            bufsize = 1,
            append_if_not_found = false,
            prepend_if_not_found = false,
            not_found_content = null,
            backup = ".bak",
            dry_run = false,
            search_only = false,
            show_changes = true,
            ignore_if_missing = false,
            preserve_inode = true,
            backslash_literal = false
        ),
        "Replace what the Python regular expression PATTERN matches in PATH \
with REPL. count, flags (names or an int), bufsize, append_if_not_found, \
prepend_if_not_found, not_found_content, backup (suffix, False for none), \
dry_run, search_only, show_changes (the diff, else True/False), \
ignore_if_missing, backslash_literal.\n\n    brine-call file.replace /etc/ssh/sshd_config '^#?PermitRootLogin.*' 'PermitRootLogin no'",
        |_, p| text::replace(p).map(Return::from),
    ),
    Function::acts(
        "rmdir",
        sig!(path, recurse = false, verbose = false, older_than = null),
        "Remove the empty directory PATH; recurse=True removes its empty \
subdirectories first, older_than=DAYS only those not changed since; \
verbose=True answers what was deleted and what failed.\n\n    brine-call file.rmdir /srv/old recurse=True",
        |_, p| io::rmdir(p).map(Return::from),
    ),
    Function::reads(
        "search",
        sig!(path, pattern, flags = 8, bufsize = 1, ignore_if_missing = false, multiline = false),
        "True when the Python regular expression PATTERN matches in PATH \
(flags as file.replace takes them; multiline=True adds MULTILINE).\n\n    brine-call file.search /etc/hosts '^127\\.0\\.0\\.1'",
        |_, p| new(text::search(p)),
    ),
    Function::acts(
        "sed",
        sig!(
            path,
            before,
            after,
            limit = "",
            backup = ".bak",
            options = "-r -e",
            flags = "g",
            escape_all = false,
            negate_match = false
        ),
        "Edit PATH in place with sed(1): s/BEFORE/AFTER/FLAGS ('g'), on lines \
matching LIMIT (negate_match: the others); options ('-r -e'), backup (suffix, \
'.bak'), escape_all (escape regex characters). Answers cmd.run_all's dict, \
False when PATH is missing.\n\n    brine-call file.sed /etc/ntp.conf '^server .*' 'server ntp.example.com'",
        io::sed,
    ),
    Function::reads(
        "sed_contains",
        sig!(path, text, limit = "", flags = "g"),
        "True when sed(1) finds TEXT (an extended regular expression) in PATH, \
on lines matching LIMIT if given.\n\n    brine-call file.sed_contains /etc/ntp.conf '^server'",
        |c, p| new(io::sed_contains(c, p)),
    ),
    Function::reads(
        "seek_read",
        sig!(path, size, offset),
        "SIZE bytes of PATH from byte OFFSET (Python's bytes).\n\n    brine-call file.seek_read /etc/passwd 4 0",
        |_, p| new(io::seek_read(p)),
    ),
    Function::acts(
        "set_mode",
        sig!(path, mode),
        "Set PATH's permission bits to MODE (octal) and return the new mode.\n\n    brine-call file.set_mode /etc/shadow 0640",
        |_, p| meta::set_mode(p).map(Return::from),
    ),
    Function::reads(
        "source_list",
        sig!(source, source_hash, saltenv),
        "The first of SOURCE (a list of sources, or of {source: hash} maps) \
that exists, with its hash, as [source, source_hash].\n\n    brine-call file.source_list '[salt://a, salt://b]' '' base",
        source::source_list,
    ),
    Function::reads(
        "stats",
        sig!(path, hash_type = null, follow_symlinks = true),
        "PATH's inode, owner, times, size, mode, type and target (hash_type \
adds its digest as sum).\n\n    brine-call file.stats /etc/passwd",
        |_, p| new(meta::stats(p)),
    ),
    Function::reads(
        "statvfs",
        sig!(path),
        "The file system holding PATH as statvfs(3) reports it (f_bavail, \
f_bfree, f_blocks, f_bsize, f_favail, f_ffree, f_files, f_flag, f_frsize, \
f_namemax).\n\n    brine-call file.statvfs /var",
        |_, p| new(meta::statvfs(p)),
    ),
    Function::acts(
        "symlink",
        sig!(src, path, force = false, atomic = false, follow_symlinks = true),
        "Make PATH a symbolic link to SRC; force=True replaces what is there, \
atomic=True replaces it in one rename.\n\n    brine-call file.symlink /srv/app/current /srv/app/live",
        |_, p| meta::symlink(p).map(Return::from),
    ),
    Function::acts(
        "touch",
        sig!(name, atime = null, mtime = null),
        "Create NAME if missing and set its access and modification times \
(atime, mtime: seconds since the epoch; now by default).\n\n    brine-call file.touch /var/run/app.stamp",
        |_, p| io::touch(p).map(Return::from),
    ),
    Function::acts(
        "truncate",
        sig!(path, length),
        "Cut the file PATH down to LENGTH bytes.\n\n    brine-call file.truncate /var/log/app.log 0",
        |_, p| io::truncate(p).map(Return::from),
    ),
    Function::acts(
        "uncomment",
        COMMENT_SIG,
        "Remove CHAR ('#') from the start of the commented lines of PATH whose \
text REGEX matches; backup as file.comment. Returns the diff of those lines, \
or False.\n\n    brine-call file.uncomment /etc/fstab '/dev/sdb1'",
        |_, p| text::comment_line(p, Some(false)).map(Return::from),
    ),
    Function::acts(
        "write",
        sig!(path, *args, **kwargs),
        "Replace PATH's contents with each further argument as a line.\n\n    brine-call file.write /etc/motd 'line one' 'line two'",
        |_, p| io::write(p).map(Return::from),
    ),
    Function::reads(
        "uid_to_user",
        sig!(uid),
        "The name of user UID; the id itself when it has no name.\n\n    brine-call file.uid_to_user 0",
        |_, p| new(meta::uid_to_user(p)),
    ),
    Function::reads(
        "user_to_uid",
        sig!(user),
        "The id of user USER (an id as it is, None: the running user); '' \
when there is no such user.\n\n    brine-call file.user_to_uid root",
        |_, p| new(meta::user_to_uid(p)),
    ),
];

/// A computed answer as a reading function hands it back.
fn new(v: Result<Value, CallError>) -> Result<Returned<'static>, CallError> {
    v.map(Returned::New)
}

fn test_path<'c>(
    _: &Ctx<'c>,
    mut p: Params,
    kind: fn(&std::fs::Metadata) -> bool,
) -> Result<Returned<'c>, CallError> {
    let target = path_str("stat", p.require("path")?)?;
    p.finish()?;
    let found = std::fs::metadata(path::expanduser(&target)).is_ok_and(|m| kind(&m));
    Ok(Returned::New(Value::Bool(found)))
}

fn path_part(mut p: Params, part: fn(&str) -> &str) -> Result<Returned<'static>, CallError> {
    let target = path_str("fspath", p.require("path")?)?;
    p.finish()?;
    Ok(Returned::New(Value::Str(part(&target).to_string())))
}

fn join<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let parts = p
        .rest()
        .into_iter()
        .map(|v| path_str("join", v))
        .collect::<Result<Vec<_>, _>>()?;
    p.finish()?;
    if parts.is_empty() {
        return Err(CallError::Failed(
            "join() missing 1 required positional argument: 'a'".into(),
        ));
    }
    Ok(Returned::New(Value::Str(path::join(
        parts.iter().map(String::as_str),
    ))))
}

#[cfg(test)]
mod tests;
