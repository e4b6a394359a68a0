use std::collections::HashMap;
use std::fmt;

/// A token of a tiny arithmetic language.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Ident(String),
    Op(char),
    LParen,
    RParen,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{}", n),
            Token::Ident(s) => write!(f, "{}", s),
            Token::Op(c) => write!(f, "{}", c),
            Token::LParen => write!(f, "("),
            Token::RParen => write!(f, ")"),
        }
    }
}

pub struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer { chars: src.chars().peekable() }
    }

    pub fn tokens(&mut self) -> Result<Vec<Token>, String> {
        let mut out = Vec::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() {
                self.chars.next();
            } else if c.is_ascii_digit() {
                let mut s = String::new();
                while let Some(&d) = self.chars.peek() {
                    if !(d.is_ascii_digit() || d == '.') {
                        break;
                    }
                    s.push(d);
                    self.chars.next();
                }
                out.push(Token::Number(s.parse().map_err(|e| format!("bad number {}: {:?}", s, e))?));
            } else if "+-*/".contains(c) {
                out.push(Token::Op(c));
                self.chars.next();
            } else {
                return Err(format!("unexpected {:?}", c));
            }
        }
        Ok(out)
    }
}

pub fn counts(tokens: &[Token]) -> HashMap<String, usize> {
    let mut map = HashMap::new();
    for t in tokens {
        *map.entry(t.to_string()).or_insert(0) += 1;
    }
    map
}
