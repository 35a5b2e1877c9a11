//! Seats and partnerships.

use std::fmt;
use std::str::FromStr;

use crate::engine::error::NotationError;

/// A seat at the table, clockwise N, E, S, W. "Left of" a seat is the next
/// one clockwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Seat {
    North = 0,
    East = 1,
    South = 2,
    West = 3,
}

impl Seat {
    pub const ALL: [Seat; 4] = [Seat::North, Seat::East, Seat::South, Seat::West];

    #[inline]
    pub const fn from_index(index: u8) -> Seat {
        match index & 3 {
            0 => Seat::North,
            1 => Seat::East,
            2 => Seat::South,
            _ => Seat::West,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The seat to this one's left, who acts next.
    #[inline]
    pub const fn left(self) -> Seat {
        Seat::from_index(self as u8 + 1)
    }

    #[inline]
    pub const fn partner(self) -> Seat {
        Seat::from_index(self as u8 + 2)
    }

    #[inline]
    pub const fn team(self) -> Team {
        if self as u8 & 1 == 0 {
            Team::NorthSouth
        } else {
            Team::EastWest
        }
    }

    /// How many seats clockwise from `origin` this seat is (0 to 3). Keys
    /// store seats this way so that they do not depend on who dealt.
    #[inline]
    pub const fn offset_from(self, origin: Seat) -> u8 {
        (self as u8 + 4 - origin as u8) & 3
    }

    pub const fn letter(self) -> char {
        match self {
            Seat::North => 'N',
            Seat::East => 'E',
            Seat::South => 'S',
            Seat::West => 'W',
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Seat {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_uppercase().as_str() {
            "N" | "NORTH" => Ok(Seat::North),
            "E" | "EAST" => Ok(Seat::East),
            "S" | "SOUTH" => Ok(Seat::South),
            "W" | "WEST" => Ok(Seat::West),
            _ => Err(NotationError::BadSeat(text.to_owned())),
        }
    }
}

/// A partnership: North-South or East-West.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Team {
    NorthSouth = 0,
    EastWest = 1,
}

impl Team {
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn other(self) -> Team {
        match self {
            Team::NorthSouth => Team::EastWest,
            Team::EastWest => Team::NorthSouth,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Team::NorthSouth => "NS",
            Team::EastWest => "EW",
        }
    }
}
