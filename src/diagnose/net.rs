//! Network findings (filled in below).
