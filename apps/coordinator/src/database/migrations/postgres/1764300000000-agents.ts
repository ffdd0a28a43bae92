import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Agents as their heartbeats describe them (PostgreSQL). */
export class Agents1764300000000 implements MigrationInterface {
  name = 'Agents1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agents" (
      "agent_id" character varying(64) NOT NULL,
      "regions" text NOT NULL,
      "version" character varying(64) NOT NULL,
      "ipv4" text NOT NULL,
      "ipv6" text NOT NULL,
      "max_in_flight" integer NOT NULL,
      "in_flight" integer NOT NULL,
      "icmp" boolean NOT NULL,
      "first_seen_at" bigint NOT NULL,
      "last_seen_at" bigint NOT NULL,
      CONSTRAINT "pk_agents" PRIMARY KEY ("agent_id"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "agents"`);
  }
}
