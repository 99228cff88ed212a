//! A small evaluator for the arithmetic ffmpeg accepts in size options (`scale=iw/2:-2`,
//! `pad=iw+20:ih+20`), enough to bound the result. It knows the common functions; anything else
//! is reported as not checkable rather than guessed at.

/// Evaluates `text` with the given variables.
pub fn eval(text: &str, vars: &[(&str, f64)]) -> Result<f64, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        vars,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(format!("unexpected '{}'", &text[p.pos..]));
    }
    Ok(v)
}

/// Deepest nesting evaluated; deeper input is refused (it is never a real size expression).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    vars: &'a [(&'a str, f64)],
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    /// Runs `step` one level deeper. Every recursive rule (parentheses, function arguments,
    /// unary signs, `^`) goes through here, so `------…1` or `1^1^…` of any length is refused
    /// instead of exhausting the WebAssembly stack.
    fn nested(&mut self, step: fn(&mut Self) -> Result<f64, String>) -> Result<f64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "expression nested too deeply (more than {MAX_DEPTH} levels of parentheses, signs or ^)"
            ));
        }
        let v = step(self)?;
        self.depth -= 1;
        Ok(v)
    }

    fn expr(&mut self) -> Result<f64, String> {
        self.nested(Self::sum)
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == b'+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut v = self.power()?;
        while let Some(op @ (b'*' | b'/')) = self.peek() {
            self.pos += 1;
            let r = self.power()?;
            v = if op == b'*' { v * r } else { v / r };
        }
        Ok(v)
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exp = self.nested(Self::power)?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                Ok(-self.nested(Self::unary)?)
            }
            Some(b'+') => {
                self.pos += 1;
                self.nested(Self::unary)
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.expr()?;
                self.expect(b')')?;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while self.pos < self.s.len()
                    && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
                {
                    self.pos += 1;
                }
                let name = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    let mut args = vec![self.expr()?];
                    while self.peek() == Some(b',') {
                        self.pos += 1;
                        args.push(self.expr()?);
                    }
                    self.expect(b')')?;
                    match name.as_str() {
                        "rotw" | "roth" => self.rotated(&args),
                        _ => call(&name, &args),
                    }
                } else {
                    self.vars
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| *v)
                        .or(match name.as_str() {
                            "PI" => Some(std::f64::consts::PI),
                            "E" => Some(std::f64::consts::E),
                            "PHI" => Some(1.618_033_988_749_895),
                            _ => None,
                        })
                        .ok_or(format!("unknown name '{name}'"))
                }
            }
            _ => Err("expected a number, a name or '('".into()),
        }
    }

    /// `rotate`'s `rotw(a)`/`roth(a)`: the rotated frame's side, at most the input's diagonal
    /// whatever the angle (which may depend on time, so it is not evaluated).
    fn rotated(&self, args: &[f64]) -> Result<f64, String> {
        let var = |n: &str| self.vars.iter().find(|(v, _)| *v == n).map(|(_, v)| *v);
        match (args.len(), var("iw"), var("ih")) {
            (1, Some(w), Some(h)) => Ok(w.hypot(h)),
            _ => Err("rotw()/roth() take 1 argument and need the input size".into()),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_digit() || self.s[self.pos] == b'.')
        {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        text.parse().map_err(|_| format!("bad number '{text}'"))
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{}'", c as char))
        }
    }
}

fn call(name: &str, a: &[f64]) -> Result<f64, String> {
    let arity = |n: usize| {
        if a.len() == n {
            Ok(())
        } else {
            Err(format!("{name}() takes {n} argument(s)"))
        }
    };
    let bool = |b: bool| if b { 1.0 } else { 0.0 };
    Ok(match name {
        "min" => {
            arity(2)?;
            a[0].min(a[1])
        }
        "max" => {
            arity(2)?;
            a[0].max(a[1])
        }
        "trunc" | "floor" | "ceil" | "round" | "abs" | "sqrt" | "not" => {
            arity(1)?;
            match name {
                "trunc" => a[0].trunc(),
                "floor" => a[0].floor(),
                "ceil" => a[0].ceil(),
                "round" => a[0].round(),
                "abs" => a[0].abs(),
                "sqrt" => a[0].sqrt(),
                _ => bool(a[0] == 0.0),
            }
        }
        "gt" | "gte" | "lt" | "lte" | "eq" | "pow" | "mod" | "hypot" => {
            arity(2)?;
            match name {
                "gt" => bool(a[0] > a[1]),
                "gte" => bool(a[0] >= a[1]),
                "lt" => bool(a[0] < a[1]),
                "lte" => bool(a[0] <= a[1]),
                "eq" => bool(a[0] == a[1]),
                "pow" => a[0].powf(a[1]),
                "hypot" => a[0].hypot(a[1]),
                _ => a[0] % a[1],
            }
        }
        "if" | "ifnot" => {
            if !(2..=3).contains(&a.len()) {
                return Err(format!("{name}() takes 2 or 3 arguments"));
            }
            let cond = (a[0] != 0.0) == (name == "if");
            if cond {
                a[1]
            } else {
                a.get(2).copied().unwrap_or(0.0)
            }
        }
        "clip" => {
            arity(3)?;
            a[0].max(a[1]).min(a[2])
        }
        "between" => {
            arity(3)?;
            bool(a[0] >= a[1] && a[0] <= a[2])
        }
        _ => return Err(format!("unknown function '{name}'")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const VARS: &[(&str, f64)] = &[("iw", 1920.0), ("ih", 1080.0), ("a", 1920.0 / 1080.0)];

    #[test]
    fn evaluates() {
        let cases = [
            ("iw/2", 960.0),
            ("-2", -2.0),
            ("trunc(iw/2)*2", 1920.0),
            ("iw*min(1280/iw,720/ih)", 1280.0),
            ("if(gt(a,1),1280,-2)", 1280.0),
            ("ih+20", 1100.0),
            ("2^3*iw", 15360.0),
            ("(iw - 10) * 2", 3820.0),
            ("hypot(3,4)", 5.0),
            ("rotw(PI/6)", 1920f64.hypot(1080.0)),
        ];
        for (text, want) in cases {
            assert!((eval(text, VARS).unwrap() - want).abs() < 1e-6, "{text}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_bound() {
        for text in [
            "random(0)",
            "foo",
            "iw*",
            "st(0,1)",
            "1;2",
            "iw)",
            &"(".repeat(100),
            &format!("{}1", "-".repeat(7000)),
            &format!("1{}", "^1".repeat(5000)),
            &format!("{}1", "+-".repeat(5000)),
        ] {
            assert!(eval(text, VARS).is_err(), "{text}");
        }
    }
}
