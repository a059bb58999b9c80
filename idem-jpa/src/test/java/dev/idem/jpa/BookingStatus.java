package dev.idem.jpa;

public enum BookingStatus {
  HELD,
  CONFIRMED,
  CANCELLED
}
