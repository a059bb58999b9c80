package docs.prelude;

public record Reserved(long reservationId, String guest, int nights) {}
