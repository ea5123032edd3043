//! Splitting one component's command string into words, the way a POSIX shell splits a simple
//! command (without expansions): `acp conduct -- "proxy --flag 'a b'" agent` gives each
//! component as one argument, as the official conductor takes them.

/// Why a command string could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WordsError {
    /// The string holds no word at all.
    #[error("the command is empty")]
    Empty,
    /// A quote is not closed.
    #[error("the command has an unclosed {0} quote")]
    UnclosedQuote(char),
    /// The string ends with a lone backslash.
    #[error("the command ends with a lone backslash")]
    TrailingBackslash,
}

/// Splits `command` into words: whitespace separates words; single quotes keep everything up to
/// the next single quote; double quotes keep everything up to the next double quote, where a
/// backslash escapes `"`, `\`, `$` and `` ` ``; elsewhere a backslash escapes the next character.
/// No variables, globs or other expansions: the words are taken literally.
///
/// # Errors
///
/// An empty command, an unclosed quote, a trailing backslash.
pub(crate) fn split(command: &str) -> Result<Vec<String>, WordsError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word exists once anything (even an empty pair of quotes) was read for it.
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(WordsError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(WordsError::UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(WordsError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(WordsError::TrailingBackslash),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(WordsError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell_without_expansions() {
        assert_eq!(split("agent").unwrap(), ["agent"]);
        assert_eq!(
            split("  proxy --flag  'a b'  \"c \\\"d\\\" $e\" f\\ g ''").unwrap(),
            ["proxy", "--flag", "a b", "c \"d\" $e", "f g", ""]
        );
        assert_eq!(split("a\"b\"'c'").unwrap(), ["abc"]);
        assert_eq!(split(r#""x\ny""#).unwrap(), [r"x\ny"]);
    }

    #[test]
    fn refuses_what_a_shell_would_refuse() {
        assert_eq!(split("   "), Err(WordsError::Empty));
        assert_eq!(split("a 'b"), Err(WordsError::UnclosedQuote('\'')));
        assert_eq!(split("a \"b"), Err(WordsError::UnclosedQuote('"')));
        assert_eq!(split("a \\"), Err(WordsError::TrailingBackslash));
    }
}
