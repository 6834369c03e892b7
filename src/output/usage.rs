//! A command line that cannot be carried out (a wrong value, options that exclude each
//! other, a file option naming something unusable): every command's arguments become its
//! config in `cli/`, and what cannot become one is a [`UsageError`] (`cli::UsageError`;
//! the layers below it, such as the `bench …` commands' driver in `run/`, say theirs
//! too). `app::main` prints it once, as clap prints its own (`error: …`), and exits with
//! status 2.

/// The sentence for the user, without the `error: ` prefix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    /// A usage error saying `msg`.
    pub fn new(msg: impl Into<String>) -> Self {
        Self(msg.into())
    }
}

impl From<String> for UsageError {
    fn from(msg: String) -> Self {
        Self(msg)
    }
}

impl From<&str> for UsageError {
    fn from(msg: &str) -> Self {
        Self(msg.to_string())
    }
}
