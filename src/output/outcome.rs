//! How a command ended, as a type: every command returns an [`Outcome`] and
//! `app::main` turns it into the process exit status in one place ([`Outcome::code`]).

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything ran and the results are valid (0).
    Ok,
    /// An error stopped the command: bad input, unreadable system, no usable CPU (1).
    Failed,
    /// Bad command line or input (2).
    Usage,
    /// The command finished, but a benchmark failed or validation found the results
    /// cannot be trusted (3).
    Untrusted,
    /// Stopped by this signal before its work was done (128 + signal).
    Interrupted(i32),
    /// Stopped by a signal that is this command's normal end (`monitor`, `net client -t 0`),
    /// or its output pipe closed while it streamed (0).
    Ended,
    /// Its output pipe closed under a one-shot command (141, as a shell reports SIGPIPE).
    BrokenPipe,
}

impl Outcome {
    /// The process exit status.
    pub fn code(self) -> i32 {
        match self {
            Outcome::Ok | Outcome::Ended => super::EXIT_OK,
            Outcome::Failed => super::EXIT_ERROR,
            Outcome::Usage => super::EXIT_USAGE,
            Outcome::Untrusted => super::EXIT_INVALID,
            Outcome::Interrupted(sig) => 128 + sig,
            Outcome::BrokenPipe => 141,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_as_the_readme_documents_them() {
        assert_eq!(Outcome::Ok.code(), 0);
        assert_eq!(Outcome::Failed.code(), 1);
        assert_eq!(Outcome::Usage.code(), 2);
        assert_eq!(Outcome::Untrusted.code(), 3);
        assert_eq!(Outcome::Interrupted(2).code(), 130);
        assert_eq!(Outcome::Interrupted(15).code(), 143);
        assert_eq!(Outcome::Ended.code(), 0);
        assert_eq!(Outcome::BrokenPipe.code(), 141);
    }
}
