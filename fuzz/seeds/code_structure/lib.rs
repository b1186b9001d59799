use std::fmt;

/// A point.
pub struct P { x: i32 }

impl fmt::Display for P {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{}", self.x) }
}

impl P {
    pub fn new() -> P { P { x: 0 } }
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() {}
}
