<?xml version="1.0" encoding="UTF-8"?>
<!-- sitemapkit's default stylesheet: shows a sitemap or sitemap index as a readable table in a browser.
     Written for sitemapkit (MIT). Browsers apply it through <?xml-stylesheet?>; crawlers ignore it.
     Every field is shown (loc, lastmod, changefreq, priority and the counts of images, alternates, videos and
     news); a field the sitemap does not give reads "–". Below 40rem (a 390 px phone) each row becomes a card
     whose cells carry their column's name, so the page never gets wider than the screen. -->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    exclude-result-prefixes="sm image video news xhtml">
  <xsl:output method="html" encoding="UTF-8" indent="yes" doctype-system="about:legacy-compat"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>
          <xsl:choose>
            <xsl:when test="*[local-name()='sitemapindex']">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <style>
          body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem;
                 color: #222; background: #fff; }
          h1 { font-size: 1.5rem; margin-bottom: .2rem; }
          p.note { color: #595959; margin-top: 0; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e5e5e5;
                   vertical-align: top; }
          th { background: #f4f4f4; position: sticky; top: 0; }
          td.url { word-break: break-all; overflow-wrap: anywhere; }
          td.num, th.num { text-align: right; white-space: nowrap; }
          td.date { white-space: nowrap; color: #555; }
          small { color: #666; }
          a { color: #0645ad; }
          @media (prefers-color-scheme: dark) {
            body { background: #121212; color: #e6e6e6; }
            th { background: #222; } th, td { border-color: #333; }
            p.note, td.date, small { color: #b3b3b3; } a { color: #8ab4ff; }
          }
          @media (max-width: 40rem) {
            body { margin: 1rem auto; padding: 0 .6rem; }
            table, tbody, tr, td { display: block; width: auto; }
            tr.head { display: none; }
            tr { border-bottom: 1px solid #ccc; padding: .4rem 0; }
            td { border: 0; padding: .1rem 0; text-align: left; white-space: normal; }
            td.num { text-align: left; }
            td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
          }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="sm:sitemapindex | sm:urlset"/>
      </body>
    </html>
  </xsl:template>

  <!-- A field's value, or "–" when the sitemap does not give it. -->
  <xsl:template name="value">
    <xsl:param name="of"/>
    <xsl:choose>
      <xsl:when test="normalize-space($of) != ''"><xsl:value-of select="normalize-space($of)"/></xsl:when>
      <xsl:otherwise>–</xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template match="sm:sitemapindex">
    <h1>Sitemap index</h1>
    <p class="note">This index lists <xsl:value-of select="count(sm:sitemap)"/> sitemap file(s).
      It is meant for search engines; this page is how it looks to people.</p>
    <table>
      <tr class="head"><th class="num">#</th><th>Sitemap</th><th>Last modified</th></tr>
      <xsl:for-each select="sm:sitemap">
        <tr>
          <td class="num" data-label="#"><xsl:value-of select="position()"/></td>
          <td class="url"><a href="{normalize-space(sm:loc)}"><xsl:value-of select="normalize-space(sm:loc)"/></a></td>
          <td class="date" data-label="Last modified">
            <xsl:call-template name="value"><xsl:with-param name="of" select="sm:lastmod"/></xsl:call-template>
          </td>
        </tr>
      </xsl:for-each>
    </table>
  </xsl:template>

  <xsl:template match="sm:urlset">
    <h1>Sitemap</h1>
    <p class="note">This sitemap lists <xsl:value-of select="count(sm:url)"/> URL(s).
      It is meant for search engines; this page is how it looks to people.
      Google ignores change frequency and priority; other search engines may read them.</p>
    <table>
      <tr class="head">
        <th class="num">#</th><th>URL</th><th>Last modified</th><th>Change frequency</th>
        <th class="num">Priority</th><th class="num">Images</th><th class="num">Alternates</th>
        <th class="num">Videos</th><th class="num">News</th>
      </tr>
      <xsl:for-each select="sm:url">
        <tr>
          <td class="num" data-label="#"><xsl:value-of select="position()"/></td>
          <td class="url">
            <a href="{normalize-space(sm:loc)}"><xsl:value-of select="normalize-space(sm:loc)"/></a>
            <xsl:for-each select="xhtml:link[@rel='alternate']">
              <br/><small><xsl:value-of select="@hreflang"/>: <xsl:value-of select="@href"/></small>
            </xsl:for-each>
            <xsl:for-each select="news:news">
              <br/><small>news: <xsl:value-of select="news:title"/></small>
            </xsl:for-each>
            <xsl:for-each select="video:video">
              <br/><small>video: <xsl:value-of select="video:title"/></small>
            </xsl:for-each>
          </td>
          <td class="date" data-label="Last modified">
            <xsl:call-template name="value"><xsl:with-param name="of" select="sm:lastmod"/></xsl:call-template>
          </td>
          <td data-label="Change frequency">
            <xsl:call-template name="value"><xsl:with-param name="of" select="sm:changefreq"/></xsl:call-template>
          </td>
          <td class="num" data-label="Priority">
            <xsl:call-template name="value"><xsl:with-param name="of" select="sm:priority"/></xsl:call-template>
          </td>
          <td class="num" data-label="Images"><xsl:value-of select="count(image:image)"/></td>
          <td class="num" data-label="Alternates"><xsl:value-of select="count(xhtml:link[@rel='alternate'])"/></td>
          <td class="num" data-label="Videos"><xsl:value-of select="count(video:video)"/></td>
          <td class="num" data-label="News"><xsl:value-of select="count(news:news)"/></td>
        </tr>
      </xsl:for-each>
    </table>
  </xsl:template>
</xsl:stylesheet>
