//! `BRINE_COMMIT`: the commit brine is built from (`--version`, the
//! packages), from git when the source is a checkout, else `unknown`
//! (or the value already set, as a package build from a tarball sets it).

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for p in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=BRINE_COMMIT");
    let commit = std::env::var("BRINE_COMMIT").ok().unwrap_or_else(|| {
        std::process::Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(&root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| "unknown".into())
    });
    println!("cargo:rustc-env=BRINE_COMMIT={commit}");
}
