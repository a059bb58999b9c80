package dev.idem.examples.jpa;

public enum ReservationStatus {
  HELD,
  CONFIRMED,
  CANCELLED
}
