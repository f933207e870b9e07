//! The `pam` eauth: a password checked by the system's PAM, through the
//! service `auth.pam.service` names (Salt's default `login`), then the
//! account checked (`pam_acct_mgmt`) as Salt does. libpam is opened at
//! run time (`libpam.so.0`), so building brine needs no PAM headers and
//! a host without PAM refuses `pam` logins with a clear reason. The
//! user's groups are their system groups.

use std::ffi::{c_char, c_int, c_void, CString};

/// Why PAM could not be asked (a wrong password is `Ok(false)`).
#[derive(Debug, thiserror::Error)]
pub enum PamError {
    #[error("the system's PAM library cannot be loaded ({0}): install libpam0g")]
    Library(String),
    #[error("a user name or password with a NUL byte")]
    Nul,
    #[error("pam_start for service {service:?} failed with code {code}")]
    Start { service: String, code: c_int },
}

const PAM_SUCCESS: c_int = 0;
const PAM_BUF_ERR: c_int = 5;
const PAM_CONV_ERR: c_int = 19;
const PAM_PROMPT_ECHO_OFF: c_int = 1;
const PAM_PROMPT_ECHO_ON: c_int = 2;

#[repr(C)]
struct PamMessage {
    msg_style: c_int,
    msg: *const c_char,
}

#[repr(C)]
struct PamResponse {
    resp: *mut c_char,
    resp_retcode: c_int,
}

type ConvFn = unsafe extern "C" fn(
    c_int,
    *mut *const PamMessage,
    *mut *mut PamResponse,
    *mut c_void,
) -> c_int;

#[repr(C)]
struct PamConv {
    conv: ConvFn,
    appdata_ptr: *mut c_void,
}

/// What the conversation answers: the user name to an echoed prompt, the
/// password to a hidden one.
struct Answers {
    user: CString,
    password: CString,
}

/// PAM's conversation callback. PAM frees the answers with `free`, so
/// they are allocated with the C allocator.
unsafe extern "C" fn converse(
    n: c_int,
    msgs: *mut *const PamMessage,
    resp: *mut *mut PamResponse,
    appdata: *mut c_void,
) -> c_int {
    let Ok(count) = usize::try_from(n) else {
        return PAM_CONV_ERR;
    };
    if count == 0 || msgs.is_null() || resp.is_null() || appdata.is_null() {
        return PAM_CONV_ERR;
    }
    // SAFETY: PAM passes the Answers given to pam_start, alive for the call.
    let answers = unsafe { &*(appdata as *const Answers) };
    // SAFETY: calloc of `count` zeroed responses; checked for NULL.
    let out = unsafe { libc::calloc(count, size_of::<PamResponse>()) } as *mut PamResponse;
    if out.is_null() {
        return PAM_BUF_ERR;
    }
    for i in 0..count {
        // SAFETY: Linux-PAM passes an array of `count` message pointers.
        let m = unsafe { *msgs.add(i) };
        if m.is_null() {
            continue;
        }
        // SAFETY: a message PAM made, valid during the call.
        let style = unsafe { (*m).msg_style };
        let text = match style {
            PAM_PROMPT_ECHO_OFF => Some(&answers.password),
            PAM_PROMPT_ECHO_ON => Some(&answers.user),
            _ => None,
        };
        if let Some(t) = text {
            // SAFETY: strdup of a NUL-terminated string; `out` has `count` slots.
            unsafe { (*out.add(i)).resp = libc::strdup(t.as_ptr()) };
        }
    }
    // SAFETY: resp is PAM's out-pointer.
    unsafe { *resp = out };
    PAM_SUCCESS
}

type StartFn =
    unsafe extern "C" fn(*const c_char, *const c_char, *const PamConv, *mut *mut c_void) -> c_int;
type HandleFn = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;

/// Whether `password` is `user`'s under PAM service `service`.
pub fn authenticate(service: &str, user: &str, password: &str) -> Result<bool, PamError> {
    let answers = Answers {
        user: CString::new(user).map_err(|_| PamError::Nul)?,
        password: CString::new(password).map_err(|_| PamError::Nul)?,
    };
    let c_service = CString::new(service).map_err(|_| PamError::Nul)?;
    // SAFETY: loading the system's libpam runs no code of ours.
    let lib = unsafe { libloading::Library::new("libpam.so.0") }
        .map_err(|e| PamError::Library(e.to_string()))?;
    let sym = |name: &[u8]| PamError::Library(format!("{}", String::from_utf8_lossy(name)));
    // SAFETY: the signatures are libpam's (security/pam_appl.h).
    let (start, auth, acct, end) = unsafe {
        (
            *lib.get::<StartFn>(b"pam_start\0")
                .map_err(|_| sym(b"pam_start"))?,
            *lib.get::<HandleFn>(b"pam_authenticate\0")
                .map_err(|_| sym(b"pam_authenticate"))?,
            *lib.get::<HandleFn>(b"pam_acct_mgmt\0")
                .map_err(|_| sym(b"pam_acct_mgmt"))?,
            *lib.get::<HandleFn>(b"pam_end\0")
                .map_err(|_| sym(b"pam_end"))?,
        )
    };
    let conv = PamConv {
        conv: converse,
        appdata_ptr: &answers as *const Answers as *mut c_void,
    };
    let mut handle: *mut c_void = std::ptr::null_mut();
    // SAFETY: every pointer lives until pam_end below; `lib` outlives them.
    unsafe {
        let code = start(
            c_service.as_ptr(),
            answers.user.as_ptr(),
            &conv,
            &mut handle,
        );
        if code != PAM_SUCCESS || handle.is_null() {
            return Err(PamError::Start {
                service: service.to_string(),
                code,
            });
        }
        let mut code = auth(handle, 0);
        if code == PAM_SUCCESS {
            code = acct(handle, 0);
        }
        end(handle, code);
        Ok(code == PAM_SUCCESS)
    }
}

/// `user`'s system groups (primary first), as Salt's `pam.groups` lists
/// them; none for a user the system does not know.
pub fn groups(user: &str) -> Vec<String> {
    let Ok(Some(u)) = nix::unistd::User::from_name(user) else {
        return Vec::new();
    };
    let Ok(name) = CString::new(user) else {
        return Vec::new();
    };
    let gids = nix::unistd::getgrouplist(&name, u.gid).unwrap_or_else(|_| vec![u.gid]);
    let mut names: Vec<String> = gids
        .into_iter()
        .filter_map(|g| nix::unistd::Group::from_gid(g).ok().flatten())
        .map(|g| g.name)
        .collect();
    names.dedup();
    names
}
