package dev.idem.integration.transitions;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** String states: any text, checked by the database only. */
@Entity
public class Ticket {

  @Id
  @Column(name = "ticket_id")
  private int id;

  @Column(name = "phase")
  private String phase;
}
