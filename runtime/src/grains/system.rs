//! Grains about the machine and the running process: kernel, CPU, memory,
//! init system, virtualisation, disks, firmware, locale, user.
//!
//! Everything is read from `/proc`, `/sys` and libc; the parsers take text so
//! tests can feed them odd content, and none of them panics on it.

use brine_core::py::shlex_split;
use brine_core::{Map, Value};
use brine_host::accounts;
use brine_host::path::which;
use std::path::{Path, PathBuf};

/// Read a file as text, replacing invalid UTF-8; `None` if unreadable.
pub(crate) fn read_text(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// `platform.uname()`: (kernel, nodename, kernelrelease, kernelversion, cpuarch).
pub struct Uname {
    pub sysname: String,
    pub nodename: String,
    pub release: String,
    pub version: String,
    pub machine: String,
}

pub fn uname() -> Uname {
    let Ok(u) = nix::sys::utsname::uname() else {
        return Uname {
            sysname: String::new(),
            nodename: String::new(),
            release: String::new(),
            version: String::new(),
            machine: String::new(),
        };
    };
    let field = |f: &std::ffi::OsStr| f.to_string_lossy().into_owned();
    Uname {
        sysname: field(u.sysname()),
        nodename: field(u.nodename()),
        release: field(u.release()),
        version: field(u.version()),
        machine: field(u.machine()),
    }
}

/// `num_cpus`, `cpu_model`, `cpu_flags` from `/proc/cpuinfo` text.
/// As in Salt, a value is the text between the first and second `:`.
pub fn parse_cpuinfo(text: &str) -> Map {
    let mut num_cpus: i64 = 0;
    let mut model: Option<String> = None;
    let mut flags: Option<Vec<Value>> = None;
    for line in text.lines() {
        let mut comps = line.split(':');
        let key = comps.next().unwrap_or("").trim();
        let Some(val) = comps.next() else {
            continue;
        };
        let val = val.trim();
        match key {
            "processor" => num_cpus += 1,
            "# processors" => {
                if let Ok(n) = val.parse() {
                    num_cpus = n;
                }
            }
            "vendor_id" | "model name" | "cpu" => model = Some(val.to_string()),
            "flags" | "Features" => {
                flags = Some(val.split_whitespace().map(Value::from).collect());
            }
            "Processor" => {
                model = Some(val.split('-').next().unwrap_or("").to_string());
                num_cpus = 1;
            }
            _ => {}
        }
    }
    let mut g = Map::default();
    g.insert("num_cpus".into(), Value::Int(num_cpus));
    g.insert(
        "cpu_model".into(),
        model.unwrap_or_else(|| "Unknown".into()).into(),
    );
    g.insert("cpu_flags".into(), Value::List(flags.unwrap_or_default()));
    g
}

/// `mem_total` and `swap_total` in MiB (floor) from `/proc/meminfo` text.
pub fn parse_meminfo(text: &str) -> Map {
    let mut mem = 0;
    let mut swap = 0;
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let kib = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<i64>().ok());
        match (key.trim(), kib) {
            ("MemTotal", Some(k)) => mem = k / 1024,
            ("SwapTotal", Some(k)) => swap = k / 1024,
            _ => {}
        }
    }
    let mut g = Map::default();
    g.insert("mem_total".into(), Value::Int(mem));
    g.insert("swap_total".into(), Value::Int(swap));
    g
}

/// The `init` grain: `systemd` when `/run/systemd/system` exists, otherwise
/// guessed from PID 1's command line as Salt does.
pub fn init_system() -> String {
    if Path::new("/run/systemd/system").exists() {
        return "systemd".into();
    }
    let Some(cmdline) = read_text("/proc/1/cmdline") else {
        return "unknown".into();
    };
    let words: Vec<String> = cmdline
        .replace('\0', " ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let Some(first) = words.first() else {
        return "unknown".into();
    };
    let in_cmdline = |name: &str| {
        which(name)
            .map(|p| words.iter().any(|w| Path::new(w) == p))
            .unwrap_or(false)
    };
    match which(first) {
        Some(bin) if bin.to_string_lossy().ends_with("bin/init") => {
            init_from_binary(&bin).unwrap_or_else(|| "unknown".into())
        }
        _ if in_cmdline("supervisord") => "supervisord".into(),
        _ if in_cmdline("dumb-init") => "dumb-init".into(),
        _ if in_cmdline("tini") => "tini".into(),
        _ if words.len() == 1 && first == "runit" => "runit".into(),
        _ if words.iter().any(|w| w == "/sbin/my_init") => "runit".into(),
        _ => "unknown".into(),
    }
}

/// Look for the name of a known init system inside the init binary.
fn init_from_binary(bin: &Path) -> Option<String> {
    let data = std::fs::read(bin).ok()?.to_ascii_lowercase();
    for name in ["upstart", "sysvinit", "systemd"] {
        if data.windows(name.len()).any(|w| w == name.as_bytes()) {
            return Some(name.into());
        }
    }
    None
}

/// What `systemd-detect-virt` would print, worked out in-process: a
/// container first, then a hypervisor. `None` means "none".
fn detect_virt() -> Option<String> {
    if let Ok(env) = std::fs::read("/proc/1/environ") {
        for var in env.split(|&b| b == 0) {
            if let Some(v) = var.strip_prefix(b"container=") {
                let v = String::from_utf8_lossy(v).into_owned();
                if !v.is_empty() {
                    return Some(v);
                }
            }
        }
    }
    if let Some(c) = read_text("/run/systemd/container") {
        let c = c.trim();
        if !c.is_empty() {
            return Some(c.to_string());
        }
    }
    if Path::new("/run/.containerenv").exists() {
        return Some("podman".into());
    }
    if Path::new("/.dockerenv").exists() {
        return Some("docker".into());
    }
    let dmi = |f: &str| read_text(format!("/sys/class/dmi/id/{f}")).unwrap_or_default();
    for text in [
        dmi("product_name"),
        dmi("sys_vendor"),
        dmi("board_vendor"),
        dmi("bios_vendor"),
    ] {
        let t = text.trim();
        let hit = [
            ("KVM", "kvm"),
            ("Amazon EC2", "amazon"),
            ("QEMU", "qemu"),
            ("VMware", "vmware"),
            ("VMW", "vmware"),
            ("innotek GmbH", "oracle"),
            ("VirtualBox", "oracle"),
            ("Oracle Corporation", "oracle"),
            ("Xen", "xen"),
            ("Bochs", "bochs"),
            ("Parallels", "parallels"),
            ("BHYVE", "bhyve"),
            ("Hyper-V", "microsoft"),
            ("Apple Virtualization", "apple"),
            ("Google Compute Engine", "google"),
        ]
        .iter()
        .find(|(p, _)| t.starts_with(p));
        if let Some((_, name)) = hit {
            return Some((*name).into());
        }
    }
    cpuid_hypervisor()
}

/// The hypervisor's CPUID signature (leaf 0x40000000), when the CPU says it
/// runs under one.
#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    // CPUID exists on every x86_64 CPU; the intrinsic is safe to call
    // since Rust 1.87 (the workspace needs 1.89).
    let leaf1 = __cpuid(1);
    if leaf1.ecx & (1 << 31) == 0 {
        return None;
    }
    // Leaf 0x4000_0000 is the hypervisor vendor leaf.
    let sig = __cpuid(0x4000_0000);
    let mut bytes = Vec::with_capacity(12);
    for r in [sig.ebx, sig.ecx, sig.edx] {
        bytes.extend_from_slice(&r.to_le_bytes());
    }
    let vendor = String::from_utf8_lossy(&bytes)
        .trim_end_matches('\0')
        .to_string();
    let name = match vendor.as_str() {
        "KVMKVMKVM" | "Linux KVM Hv" => "kvm",
        "TCGTCGTCGTCG" => "qemu",
        "XenVMMXenVMM" => "xen",
        "VMwareVMware" => "vmware",
        "Microsoft Hv" => "microsoft",
        "bhyve bhyve " => "bhyve",
        "ACRNACRNACRN" => "acrn",
        " lrpepyh  vr" => "parallels",
        _ => "other",
    };
    Some(name.into())
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_hypervisor() -> Option<String> {
    None
}

/// Salt's reading of `systemd-detect-virt`'s answer.
fn virtual_from_detect_virt(out: &str, grains: &mut Map) {
    match out {
        "qemu" | "kvm" | "oracle" | "xen" | "bochs" | "chroot" | "uml" | "systemd-nspawn" => {
            grains.insert("virtual".into(), out.into());
        }
        o if o.contains("vmware") => {
            grains.insert("virtual".into(), "VMware".into());
        }
        o if o.contains("microsoft") => {
            grains.insert("virtual".into(), "VirtualPC".into());
        }
        o if o.contains("lxc") => {
            grains.insert("virtual".into(), "container".into());
            grains.insert("virtual_subtype".into(), "LXC".into());
        }
        o if o.contains("podman") => {
            grains.insert("virtual".into(), "container".into());
            grains.insert("virtual_subtype".into(), "Podman".into());
        }
        o if o.contains("docker") => {
            grains.insert("virtual".into(), "container".into());
            grains.insert("virtual_subtype".into(), "Docker".into());
        }
        o if o.contains("amazon") => {
            grains.insert("virtual".into(), "Nitro".into());
            grains.insert("virtual_subtype".into(), "Amazon EC2".into());
        }
        _ => {}
    }
}

/// `virtual` (and `virtual_subtype` when known), following Salt's Linux
/// checks in the same order.
pub fn virtual_grains(cpuinfo: &str) -> Map {
    let mut g = Map::default();
    g.insert("virtual".into(), "physical".into());
    if let Some(out) = detect_virt() {
        virtual_from_detect_virt(&out, &mut g);
    }
    let set = |g: &mut Map, k: &str, v: &str| {
        g.insert(k.into(), v.into());
    };
    // Running in a chroot: "/" is not PID 1's root.
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata("/"), std::fs::metadata("/proc/1/root/.")) {
            if (a.dev(), a.ino()) != (b.dev(), b.ino()) {
                set(&mut g, "virtual_subtype", "chroot");
            }
        }
    }
    if Path::new("/proc/vz").is_dir() {
        if Path::new("/proc/vz/version").is_file() {
            set(&mut g, "virtual", "openvzhn");
        } else if Path::new("/proc/vz/veinfo").is_file() {
            set(&mut g, "virtual", "openvzve");
        }
    }
    if let Some(status) = read_text("/proc/self/status") {
        for line in status.lines() {
            if let Some(rest) = line.strip_prefix("envID:") {
                if let Ok(id) = rest.trim().parse::<i64>() {
                    set(
                        &mut g,
                        "virtual",
                        if id != 0 { "openvzve" } else { "openvzhn" },
                    );
                }
            }
        }
    }
    let is_dir = |p: &str| Path::new(p).is_dir();
    if is_dir("/proc/sys/xen") || is_dir("/sys/bus/xen") || is_dir("/proc/xen") {
        if Path::new("/proc/xen/xsd_kva").is_file() {
            set(&mut g, "virtual_subtype", "Xen Dom0");
        } else if let Some(caps) = read_text("/proc/xen/capabilities") {
            if caps.contains("control_d") {
                set(&mut g, "virtual_subtype", "Xen Dom0");
            } else {
                set(&mut g, "virtual_subtype", "Xen PV DomU");
            }
        } else if is_dir("/sys/bus/xen/drivers/xenconsole") {
            set(&mut g, "virtual_subtype", "Xen PV DomU");
        }
        let sub = g
            .get("virtual_subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_lowercase();
        if sub.contains("dom") {
            set(&mut g, "virtual", "xen");
        }
    }
    if cpuinfo.contains("QEMU Virtual CPU") {
        set(&mut g, "virtual", "kvm");
    }
    if let Some(product) = read_text("/sys/devices/virtual/dmi/id/product_name") {
        if product.contains("VirtualBox") {
            set(&mut g, "virtual", "VirtualBox");
        } else if product.contains("RHEV Hypervisor") {
            set(&mut g, "virtual", "kvm");
            set(&mut g, "virtual_subtype", "rhev");
        } else if product.contains("oVirt Node") {
            set(&mut g, "virtual", "kvm");
            set(&mut g, "virtual_subtype", "ovirt");
        } else if product.contains("Google") {
            set(&mut g, "virtual", "gce");
        } else if product.contains("BHYVE") {
            set(&mut g, "virtual", "bhyve");
        }
    }
    if let Some(cg) = read_text("/proc/1/cgroup") {
        if cg.contains(":/lxc/") {
            set(&mut g, "virtual", "container");
            set(&mut g, "virtual_subtype", "LXC");
        } else if cg.contains(":/kubepods/") {
            set(&mut g, "virtual_subtype", "kubernetes");
        } else if cg.contains(":/libpod_parent/") {
            set(&mut g, "virtual_subtype", "libpod");
        } else if [":/system.slice/docker", ":/docker/", ":/docker-ce/"]
            .iter()
            .any(|p| cg.contains(p))
        {
            set(&mut g, "virtual", "container");
            set(&mut g, "virtual_subtype", "Docker");
        }
    }
    if g.get("virtual_subtype").and_then(Value::as_str) != Some("LXC") {
        if let Ok(env) = std::fs::read("/proc/1/environ") {
            if env.windows(13).any(|w| w == b"container=lxc") {
                set(&mut g, "virtual", "container");
                set(&mut g, "virtual_subtype", "LXC");
            }
        }
    }
    let has_subtype = g.get("virtual_subtype").is_some_and(Value::is_truthy);
    if has_subtype && g.get("virtual").and_then(Value::as_str) == Some("physical") {
        set(&mut g, "virtual", "virtual");
    }
    // Salt asks dmidecode whether a KVM/Xen guest is an EC2 instance; sysfs
    // has the same DMI strings.
    let virt = g
        .get("virtual")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if ["qemu", "kvm", "xen", "amazon"].contains(&virt.as_str()) {
        let vendor = read_text("/sys/class/dmi/id/sys_vendor").unwrap_or_default();
        if vendor.trim() == "Amazon EC2" {
            if virt != "xen" {
                set(&mut g, "virtual", "Nitro");
            }
            let product = read_text("/sys/class/dmi/id/product_name").unwrap_or_default();
            let product = product.trim();
            if product.is_empty() {
                set(&mut g, "virtual_subtype", "Amazon EC2");
            } else {
                set(
                    &mut g,
                    "virtual_subtype",
                    &format!("Amazon EC2 ({product})"),
                );
            }
        } else if read_text("/sys/class/dmi/id/bios_version")
            .is_some_and(|v| v.trim().contains(".amazon"))
        {
            set(&mut g, "virtual_subtype", "Amazon EC2");
        }
    }
    g
}

/// Firmware identity from `/sys/class/dmi/id` (Salt's `_hw_data` on Linux).
pub fn hw_data() -> Map {
    let mut g = Map::default();
    let base = Path::new("/sys/class/dmi/id");
    if !base.exists() {
        return g;
    }
    for (key, file) in [
        ("biosversion", "bios_version"),
        ("biosvendor", "bios_vendor"),
        ("boardname", "board_name"),
        ("productname", "product_name"),
        ("manufacturer", "sys_vendor"),
        ("biosreleasedate", "bios_date"),
        ("uuid", "product_uuid"),
        ("serialnumber", "product_serial"),
    ] {
        // Unreadable files (serial and uuid are root-only) are skipped.
        if let Some(text) = read_text(base.join(file)) {
            let mut v = text.trim().to_string();
            if key == "uuid" {
                v = v.to_lowercase();
            }
            g.insert(key.into(), v.into());
        }
    }
    g
}

/// `disks` (rotational) and `ssds` from `/sys/block`, skipping virtual
/// devices, in directory order as Salt's glob gives them.
pub fn disks() -> Map {
    let mut disks = Vec::new();
    let mut ssds = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/sys/block") {
        for entry in dir.flatten() {
            let link = std::fs::read_link(entry.path()).unwrap_or_default();
            if link.starts_with("../devices/virtual/") {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            match read_text(entry.path().join("queue/rotational"))
                .as_deref()
                .and_then(|t| t.chars().next())
            {
                Some('0') => ssds.push(Value::Str(name)),
                Some('1') => disks.push(Value::Str(name)),
                _ => {}
            }
        }
    }
    let mut g = Map::default();
    g.insert("disks".into(), Value::List(disks));
    g.insert("ssds".into(), Value::List(ssds));
    g
}

/// `efi` and `efi-secure-boot`.
pub fn uefi() -> Map {
    let dir = ["/sys/firmware/efi/efivars", "/sys/firmware/efi/vars"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let mut secure = false;
    if let Some(d) = dir {
        let efivars = d.ends_with("efivars");
        let found: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("SecureBoot-"))
                    .map(|e| {
                        if efivars {
                            e.path()
                        } else {
                            e.path().join("data")
                        }
                    })
                    .filter(|p| p.exists())
                    .collect()
            })
            .unwrap_or_default();
        if let [only] = found.as_slice() {
            secure = std::fs::read(only).ok().and_then(|b| b.last().copied()) == Some(1);
        }
    }
    let mut g = Map::default();
    g.insert("efi".into(), Value::Bool(dir.is_some()));
    g.insert("efi-secure-boot".into(), Value::Bool(secure));
    g
}

/// `num_gpus` and `gpus`. Salt parses `lspci -vmm` and gives up when lspci
/// is missing; brine reads the same PCI data from sysfs and names it from
/// the `pci.ids` database lspci itself uses.
pub fn gpu_data() -> Map {
    let mut g = Map::default();
    let mut gpus = Vec::new();
    if which("lspci").is_some() {
        let mut found: Vec<(String, u32, u32)> = Vec::new();
        if let Ok(dir) = std::fs::read_dir("/sys/bus/pci/devices") {
            let mut entries: Vec<_> = dir.flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let hex = |f: &str| {
                    read_text(e.path().join(f)).and_then(|t| {
                        u32::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok()
                    })
                };
                let (Some(class), Some(vendor), Some(device)) =
                    (hex("class"), hex("vendor"), hex("device"))
                else {
                    continue;
                };
                // VGA compatible, 3D and display controllers; processing
                // accelerators.
                let is_gpu = matches!(class >> 8, 0x0300 | 0x0302 | 0x0380) || class >> 16 == 0x12;
                if is_gpu {
                    found.push((e.file_name().to_string_lossy().into_owned(), vendor, device));
                }
            }
        }
        if !found.is_empty() {
            let ids = [
                "/usr/share/misc/pci.ids",
                "/usr/share/hwdata/pci.ids",
                "/usr/share/pci.ids",
            ]
            .iter()
            .find_map(read_text)
            .unwrap_or_default();
            for (_, vendor, device) in found {
                let (vname, dname) = pci_names(&ids, vendor, device);
                let vendor_words: Vec<String> = vname
                    .to_lowercase()
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .map(str::to_string)
                    .collect();
                let known = [
                    "nvidia",
                    "amd",
                    "ati",
                    "intel",
                    "cirrus logic",
                    "vmware",
                    "matrox",
                    "aspeed",
                ];
                let v = known
                    .iter()
                    .find(|k| vendor_words.iter().any(|w| w == *k))
                    .copied()
                    .unwrap_or("unknown");
                let mut gpu = Map::default();
                gpu.insert("vendor".into(), v.into());
                gpu.insert("model".into(), dname.into());
                gpus.push(Value::Map(gpu));
            }
        }
    }
    g.insert("num_gpus".into(), Value::Int(gpus.len() as i64));
    g.insert("gpus".into(), Value::List(gpus));
    g
}

/// Vendor and device names from pci.ids text; hex ids when unknown, as
/// lspci prints them.
fn pci_names(ids: &str, vendor: u32, device: u32) -> (String, String) {
    let vhex = format!("{vendor:04x}");
    let dhex = format!("{device:04x}");
    let mut vname = None;
    let mut dname = None;
    let mut in_vendor = false;
    for line in ids.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if !line.starts_with('\t') {
            if in_vendor {
                break;
            }
            if let Some(rest) = line.strip_prefix(&vhex) {
                vname = Some(rest.trim().to_string());
                in_vendor = true;
            }
        } else if in_vendor && !line.starts_with("\t\t") {
            if let Some(rest) = line[1..].strip_prefix(&dhex) {
                dname = Some(rest.trim().to_string());
            }
        }
    }
    (vname.unwrap_or(vhex), dname.unwrap_or(dhex))
}

/// `kernelparams`: `[name, value-or-None]` pairs from `/proc/cmdline` text.
pub fn parse_kernelparams(cmdline: &str) -> Value {
    Value::List(
        shlex_split(cmdline)
            .unwrap_or_default()
            .iter()
            .map(|item| {
                let parts: Vec<&str> = item.split('=').collect();
                let value = if parts.len() == 2 {
                    Value::Str(parts[1].trim_matches('"').to_string())
                } else {
                    Value::Null
                };
                Value::List(vec![Value::Str(parts[0].to_string()), value])
            })
            .collect(),
    )
}

/// `locale_info`: what Python's `locale.getlocale()` and the local time
/// zone name say.
pub fn locale_info() -> Map {
    let mut li = Map::default();
    let (lang, enc) = current_locale();
    li.insert("defaultlanguage".into(), lang);
    li.insert("defaultencoding".into(), enc);
    li.insert("detectedencoding".into(), "utf-8".into());
    li.insert("timezone".into(), timezone_name().into());
    li
}

/// The process's `LC_CTYPE` locale as Python sees it: the first non-empty
/// of `LC_ALL`, `LC_CTYPE`, `LANG`, or C when that locale is not installed.
fn current_locale() -> (Value, Value) {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let lc_all = var("LC_ALL");
    let wanted = lc_all
        .clone()
        .or_else(|| var("LC_CTYPE"))
        .or_else(|| var("LANG"))
        .unwrap_or_else(|| "C".into());
    let name = if brine_host::sys::locale_installed(&wanted) {
        wanted
    } else {
        "C".into()
    };
    parse_locale_name(&name, lc_all.is_some())
}

/// `lang_TERRITORY.encoding@modifier` → (language, normalized encoding).
/// Python reads `C.UTF-8` as `en_US`/`UTF-8`, and coerces a plain C locale
/// to it unless `LC_ALL` forced it (then there is no language: `None`).
pub(crate) fn parse_locale_name(name: &str, c_forced: bool) -> (Value, Value) {
    let n = name.trim();
    if n == "C" || n == "POSIX" {
        if c_forced {
            return (Value::Null, Value::Null);
        }
        return ("en_US".into(), "UTF-8".into());
    }
    if n.is_empty() || n.eq_ignore_ascii_case("c.utf-8") || n.eq_ignore_ascii_case("c.utf8") {
        return ("en_US".into(), "UTF-8".into());
    }
    let n = n.split('@').next().unwrap_or(n);
    let (lang, enc) = match n.split_once('.') {
        Some((l, e)) => (l, Some(e)),
        None => (n, None),
    };
    let enc = match enc {
        Some(e) => {
            let norm: String = e
                .chars()
                .filter(|c| *c != '-' && *c != '_')
                .collect::<String>()
                .to_lowercase();
            Value::Str(match norm.as_str() {
                "utf8" => "UTF-8".into(),
                "iso88591" => "ISO8859-1".into(),
                "iso885915" => "ISO8859-15".into(),
                "eucjp" => "eucJP".into(),
                _ => e.to_string(),
            })
        }
        None => Value::Str("ISO8859-1".into()),
    };
    (lang.into(), enc)
}

/// The abbreviation of the local time zone now (`UTC`, `CEST`).
fn timezone_name() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    brine_host::sys::local_time(now)
        .and_then(|t| t.zone)
        .unwrap_or_else(|| "unknown".into())
}

/// `username`, `groupname`, `pid`, `gid`, `uid` of this process.
pub fn process_grains() -> Map {
    let (uid, gid, pid) = (accounts::euid(), accounts::egid(), std::process::id());
    let user = accounts::user_by_uid(uid);
    let mut g = Map::default();
    g.insert(
        "username".into(),
        user.as_ref()
            .map(|u| u.name.clone())
            .unwrap_or_default()
            .into(),
    );
    // The name of the user's primary group, as Salt reads it.
    let group = user
        .and_then(|u| u32::try_from(u.gid).ok())
        .and_then(accounts::group_by_gid)
        .map(|g| g.name)
        .unwrap_or_default();
    g.insert("groupname".into(), group.into());
    g.insert("pid".into(), Value::Int(i64::from(pid)));
    g.insert("gid".into(), Value::Int(i64::from(gid)));
    g.insert("uid".into(), Value::Int(i64::from(uid)));
    g
}

/// The `selinux` grain, present when `selinuxenabled` is installed. Read
/// from selinuxfs instead of running `selinuxenabled`/`getenforce`.
pub fn selinux() -> Option<Value> {
    which("selinuxenabled")?;
    let enforce = read_text("/sys/fs/selinux/enforce");
    let mut m = Map::default();
    m.insert("enabled".into(), Value::Bool(enforce.is_some()));
    if which("getenforce").is_some() {
        let state = match enforce.as_deref().map(str::trim) {
            Some("1") => "Enforcing",
            Some(_) => "Permissive",
            None => "Disabled",
        };
        m.insert("enforced".into(), state.into());
    }
    Some(Value::Map(m))
}

/// The `systemd` grain (`version`, `features`), present when both
/// `systemctl` and `localectl` are installed. The feature string exists
/// only in `systemctl --version`'s answer, so this is the one grain that
/// runs a program.
pub fn systemd() -> Option<Value> {
    systemd_cached(None)
}

/// [`systemd`], reusing `cachedir/grains_systemd` while `systemctl` is the
/// same file (same size and mtime) as when it was written.
pub fn systemd_cached(cachedir: Option<&Path>) -> Option<Value> {
    let systemctl = which("systemctl")?;
    which("localectl")?;
    let key = std::fs::metadata(&systemctl).ok().map(|m| {
        let mtime = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!("{} {} {}", systemctl.display(), m.len(), mtime)
    });
    let cache = cachedir.map(|d| d.join("grains_systemd"));
    if let (Some(cache), Some(key)) = (&cache, &key) {
        if let Ok(text) = std::fs::read_to_string(cache) {
            if let Some((k, rest)) = text.split_once('\n') {
                if k == key {
                    return Some(parse_systemctl_version(rest));
                }
            }
        }
    }
    let out = std::process::Command::new(&systemctl)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok();
    let text = out
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if let (Some(cache), Some(key)) = (&cache, &key) {
        // A cache that cannot be written only costs the next run a spawn.
        let _ = std::fs::create_dir_all(cache.parent().unwrap_or(Path::new("/")))
            .and_then(|_| std::fs::write(cache, format!("{key}\n{text}")));
    }
    Some(parse_systemctl_version(&text))
}

/// The `systemd` grain from `systemctl --version`'s output (empty output:
/// version `UNDEFINED`, as Salt reports a failed call).
fn parse_systemctl_version(text: &str) -> Value {
    let mut version = "UNDEFINED".to_string();
    let mut features = String::new();
    {
        let mut lines = text.lines();
        if let (Some(first), Some(second)) = (lines.next(), lines.next()) {
            if let Some(rest) = first.strip_prefix("systemd ") {
                version = rest.split_whitespace().next().unwrap_or("").to_string();
                features = second.to_string();
            }
        }
    }
    let mut m = Map::default();
    m.insert("version".into(), version.into());
    m.insert("features".into(), features.into());
    Value::Map(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systemd_grain_is_cached_until_systemctl_changes() {
        let dir = tempfile::tempdir().unwrap();
        let first = systemd_cached(Some(dir.path()));
        assert_eq!(first, systemd(), "cached and uncached answers agree");
        if first.is_some() {
            assert!(dir.path().join("grains_systemd").is_file());
            // A stale key means a fresh spawn; the answer stays the same.
            std::fs::write(
                dir.path().join("grains_systemd"),
                "old key\nsystemd 1 (1)\n-X\n",
            )
            .unwrap();
            assert_eq!(systemd_cached(Some(dir.path())), first);
        } else {
            println!("skipped: no systemctl/localectl on this machine");
        }
    }

    #[test]
    fn cpuinfo_x86_and_arm() {
        let g = parse_cpuinfo(
            "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme\n\n\
             processor\t: 1\nmodel name\t: AMD EPYC\n",
        );
        assert_eq!(g.get("num_cpus"), Some(&Value::Int(2)));
        assert_eq!(g.get("cpu_model"), Some(&Value::from("AMD EPYC")));
        assert_eq!(
            g.get("cpu_flags"),
            Some(&Value::List(vec!["fpu".into(), "vme".into()]))
        );
        let arm = parse_cpuinfo(
            "Processor\t: ARMv6-compatible processor rev 7 (v6l)\nFeatures\t: swp half\n",
        );
        assert_eq!(arm.get("num_cpus"), Some(&Value::Int(1)));
        assert_eq!(arm.get("cpu_model"), Some(&Value::from("ARMv6")));
        // A colon inside the value cuts it, as in Salt.
        let odd = parse_cpuinfo("model name : a:b\n# processors : x\n:::\n\u{0}");
        assert_eq!(odd.get("cpu_model"), Some(&Value::from("a")));
        assert_eq!(odd.get("num_cpus"), Some(&Value::Int(0)));
        let empty = parse_cpuinfo("");
        assert_eq!(empty.get("cpu_model"), Some(&Value::from("Unknown")));
        assert_eq!(empty.get("cpu_flags"), Some(&Value::List(vec![])));
    }

    #[test]
    fn meminfo_floor_mib() {
        let g = parse_meminfo(
            "MemTotal:       24684052 kB\nSwapTotal:  2047 kB\nJunk\nMemFree: x kB\n",
        );
        assert_eq!(g.get("mem_total"), Some(&Value::Int(24105)));
        assert_eq!(g.get("swap_total"), Some(&Value::Int(1)));
        let bad = parse_meminfo("MemTotal: 99999999999999999999999 kB\n");
        assert_eq!(bad.get("mem_total"), Some(&Value::Int(0)));
    }

    #[test]
    fn kernelparams_like_salt() {
        let v = parse_kernelparams("quiet root=/dev/sda1 a=b=c x=\"y z\" '--' e=\n");
        assert_eq!(
            v.to_python_repr(),
            "[['quiet', None], ['root', '/dev/sda1'], ['a', None], ['x', 'y z'], ['--', None], ['e', '']]"
        );
        assert_eq!(parse_kernelparams(""), Value::List(vec![]));
        let _ = parse_kernelparams("\"unterminated \\");
    }

    #[test]
    fn locale_names_like_python() {
        // Checked against Python 3.11's locale.getlocale().
        assert_eq!(
            parse_locale_name("C", false),
            ("en_US".into(), "UTF-8".into())
        );
        assert_eq!(parse_locale_name("C", true), (Value::Null, Value::Null));
        assert_eq!(
            parse_locale_name("C.UTF-8", true),
            ("en_US".into(), "UTF-8".into())
        );
        assert_eq!(
            parse_locale_name("de_DE.utf8", false),
            ("de_DE".into(), "UTF-8".into())
        );
        assert_eq!(
            parse_locale_name("fr_FR.ISO-8859-15@euro", false),
            ("fr_FR".into(), "ISO8859-15".into())
        );
    }

    #[test]
    fn pci_ids_lookup() {
        let ids = "# c\n10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n\t\t10de 12a2  sub\n1234  Other\n";
        assert_eq!(
            pci_names(ids, 0x10de, 0x1eb8),
            ("NVIDIA Corporation".into(), "TU104GL [Tesla T4]".into())
        );
        assert_eq!(pci_names(ids, 0xabcd, 0x1), ("abcd".into(), "0001".into()));
    }
}
